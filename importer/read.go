package importer

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
)

// ReadBlockDefinitions reads the JSON files of --blocks: the file itself,
// or the *.json files directly inside the directory, in name order. The
// directory's files are read through an os.Root: a symbolic link that
// leads out of it is not followed.
func ReadBlockDefinitions(path string) ([]File, hcl.Diagnostics) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, hcl.Diagnostics{lang.PathError(path, err)}
	}
	if !info.IsDir() {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, hcl.Diagnostics{lang.PathError(path, err)}
		}
		return []File{{Name: path, Bytes: b}}, nil
	}
	root, err := os.OpenRoot(path)
	if err != nil {
		return nil, hcl.Diagnostics{lang.PathError(path, err)}
	}
	defer root.Close()
	entries, err := fs.ReadDir(root.FS(), ".")
	if err != nil {
		return nil, hcl.Diagnostics{lang.PathError(path, err)}
	}
	var out []File
	var diags hcl.Diagnostics
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		name := filepath.Join(path, e.Name())
		b, err := root.ReadFile(e.Name())
		switch {
		case err != nil && e.Type()&fs.ModeSymlink != 0 && !errors.Is(err, fs.ErrNotExist):
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot read file",
				Detail: "The file " + name + " is a symbolic link that leads out of " + path + ", and import reads only the files inside --blocks."})
		case err != nil:
			diags = append(diags, lang.PathError(name, err))
		default:
			out = append(out, File{Name: name, Bytes: b})
		}
	}
	if len(out) == 0 && !diags.HasErrors() {
		diags = append(diags, lang.PathError(path, &fs.PathError{Op: "read", Path: path, Err: errors.New("no *.json block definitions in the directory")}))
	}
	return out, diags
}
