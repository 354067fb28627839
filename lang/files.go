package lang

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// FindFiles returns the files under paths that match: a file given by name
// is taken whatever its name; directories are walked recursively, skipping
// hidden directories (such as .flowctl and .git).
func FindFiles(paths []string, match func(string) bool) ([]string, hcl.Diagnostics) {
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
			diags = append(diags, PathError(root, err))
			continue
		}
		if !info.IsDir() {
			add(filepath.Clean(root))
			continue
		}
		var found []string
		err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				diags = append(diags, PathError(p, err))
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
			diags = append(diags, PathError(root, err))
		}
		sort.Strings(found)
		for _, p := range found {
			add(p)
		}
	}
	return out, diags
}

// PathError is the diagnostic of a path that cannot be read.
func PathError(path string, err error) *hcl.Diagnostic {
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

// IsFlowOrBlockFile reports whether p names a flow or a block file.
func IsFlowOrBlockFile(p string) bool { return IsFlowFile(p) || IsBlockFile(p) }

// FindFlowsAndBlockFiles finds the flow and block files under the paths,
// recursively. Finding none is an error unless none is fine (there is a
// registry to look at instead).
func FindFlowsAndBlockFiles(paths []string, noneIsFine bool) (flows, blockFiles []string, diags hcl.Diagnostics) {
	files, diags := FindFiles(paths, IsFlowOrBlockFile)
	for _, f := range files {
		if IsBlockFile(f) {
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
