package cli

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
)

// findFiles returns the files under paths that match: a file given by name
// is taken whatever its name; directories are walked recursively, skipping
// hidden directories (such as .flowctl and .git).
func findFiles(paths []string, match func(string) bool) ([]string, hcl.Diagnostics) {
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
			diags = append(diags, pathError(root, err))
			continue
		}
		if !info.IsDir() {
			add(filepath.Clean(root))
			continue
		}
		var found []string
		err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				diags = append(diags, pathError(p, err))
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
			diags = append(diags, pathError(root, err))
		}
		sort.Strings(found)
		for _, p := range found {
			add(p)
		}
	}
	return out, diags
}

func pathError(path string, err error) *hcl.Diagnostic {
	reason := err.Error()
	if pe, ok := err.(*fs.PathError); ok {
		reason = pe.Err.Error()
	}
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Cannot read path",
		Detail:   "The path " + path + " cannot be read: " + reason + ".",
	}
}

// flowPath resolves a FLOW argument: a flow file, or a directory holding
// exactly one *.flow.hcl file.
func flowPath(arg string) (string, hcl.Diagnostics) {
	info, err := os.Stat(arg)
	if err != nil {
		return "", hcl.Diagnostics{pathError(arg, err)}
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

func isFlowOrBlockFile(p string) bool { return lang.IsFlowFile(p) || lang.IsBlockFile(p) }

// findFlowsAndBlockFiles finds the flow and block files under the paths,
// recursively. Finding none is an error unless none is fine (there is a
// registry to look at instead).
func findFlowsAndBlockFiles(paths []string, noneIsFine bool) (flows, blockFiles []string, diags hcl.Diagnostics) {
	files, diags := findFiles(paths, isFlowOrBlockFile)
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

func isHCLFile(p string) bool { return strings.HasSuffix(p, ".hcl") }
