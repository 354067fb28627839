package project

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
)

// Which flows: the files a command's paths name, a project's flow
// files, and the programs of the flows under a directory.

// Find returns the files under paths that match: a file given by name
// is taken whatever its name; directories are walked recursively, skipping
// hidden directories (such as .flowctl and .git).
func Find(paths []string, match func(string) bool) ([]string, hcl.Diagnostics) {
	var out []string
	var diags hcl.Diagnostics
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, root := range paths {
		info, err := os.Stat(root)
		if err != nil {
			diags = append(diags, lang.PathError(root, err))
			continue
		}
		if !info.IsDir() {
			add(filepath.Clean(root))
			continue
		}
		var found []string
		err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				diags = append(diags, lang.PathError(p, err))
				return nil
			}
			if d.IsDir() && p != root && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			if !d.IsDir() && match(p) {
				found = append(found, p)
			}
			return nil
		})
		if err != nil {
			diags = append(diags, lang.PathError(root, err))
		}
		sort.Strings(found)
		for _, p := range found {
			add(p)
		}
	}
	return out, diags
}

// FlowPath resolves a FLOW argument: a flow file, or a directory holding
// exactly one *.flow.hcl file.
func FlowPath(arg string) (string, hcl.Diagnostics) {
	info, err := os.Stat(arg)
	if err != nil {
		return "", hcl.Diagnostics{lang.PathError(arg, err)}
	}
	if !info.IsDir() {
		return arg, nil
	}
	matches, _ := filepath.Glob(filepath.Join(arg, "*.flow.hcl"))
	switch len(matches) {
	case 1:
		return matches[0], nil
	case 0:
		return "", hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "No flow file",
			Detail:   "The directory " + arg + " holds no *.flow.hcl file; name a flow file or a directory with exactly one.",
		}}
	}
	names := make([]string, len(matches))
	for i, m := range matches {
		names[i] = filepath.Base(m)
	}
	return "", hcl.Diagnostics{{
		Severity: hcl.DiagError,
		Summary:  "More than one flow file",
		Detail:   "The directory " + arg + " holds several flows (" + strings.Join(names, ", ") + "); name the one you mean.",
	}}
}

// FindFlowsAndBlocks finds the flow and block files under the paths,
// recursively. Finding none is an error unless none is fine (there is a
// registry to look at instead).
func FindFlowsAndBlocks(paths []string, noneIsFine bool) (flows, blockFiles []string, diags hcl.Diagnostics) {
	files, diags := Find(paths, func(p string) bool { return lang.IsFlowFile(p) || lang.IsBlockFile(p) })
	for _, f := range files {
		if lang.IsBlockFile(f) {
			blockFiles = append(blockFiles, f)
		} else {
			flows = append(flows, f)
		}
	}
	if len(files) == 0 && !noneIsFine && !diags.HasErrors() {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "No flow or block files",
			Detail:   fmt.Sprintf("No *.flow.hcl or *.block.hcl files were found under %s.", strings.Join(paths, ", ")),
		})
	}
	return flows, blockFiles, diags
}

// CompileFlows compiles every flow under dir with o (a program per flow
// file, in the order Find gives); none is an error.
func CompileFlows(dir string, o compiler.Options) ([]*compiler.Program, hcl.Diagnostics) {
	flows, _, diags := FindFlowsAndBlocks([]string{dir}, false)
	if diags.HasErrors() {
		return nil, diags
	}
	var progs []*compiler.Program
	for _, path := range flows {
		prog, pdiags := compiler.Compile(path, o)
		diags = append(diags, pdiags...)
		if pdiags.HasErrors() {
			return nil, diags
		}
		progs = append(progs, prog)
	}
	if len(progs) == 0 {
		abs, _ := filepath.Abs(dir)
		return nil, append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "No flows", Detail: "No flow files were found under " + abs + "."})
	}
	return progs, diags
}

// Compile compiles the flow a command's FLOW argument names (FlowPath)
// with o. The program keeps what it evaluates: with o.Release the flow
// files' syntax trees went as they were decoded, and the other files'
// (blocks, flows only named), which would stay in memory for as long as
// the program runs, are released from o.Parser.
func Compile(arg string, o compiler.Options) (*compiler.Program, hcl.Diagnostics) {
	path, diags := FlowPath(arg)
	if diags.HasErrors() {
		return nil, diags
	}
	prog, diags := compiler.Compile(path, o)
	if diags.HasErrors() {
		return nil, diags
	}
	if o.Release && o.Parser != nil {
		o.Parser.Release()
	}
	return prog, diags
}
