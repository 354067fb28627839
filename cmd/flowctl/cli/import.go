package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/importer"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/spf13/cobra"
)

func newImportCommand(s streams) *cobra.Command {
	var a arguments.Import
	cmd := &cobra.Command{
		Use:   "import [--from anythingllm|agentflow|n8n] [--out DIR] [--blocks DIR] [--partial] [--force] [--json] FILE...",
		Short: "Convert AnythingLLM agent flows, AgentFlow pipelines and n8n workflows into flows",
		Long: `Import converts each FILE into a flow: an AnythingLLM agent flow, an
AgentFlow pipeline (its blocks from --blocks, a directory of JSON block
definitions or one JSON file holding a list) or an n8n workflow. The format
is detected from each file's shape; --from forces it.

It writes DIR/NAME.flow.hcl (NAME in snake_case from the flow's name) and,
where blocks are needed, DIR/blocks/NAME.block.hcl (--out DIR, default .),
formatted and validated, each step with a comment naming the node or step
it came from. It replaces no file that exists with other content unless
--force, and writes nothing when it would (each such file is named);
nothing is written through a symbolic link out of DIR. Credentials are never written: they become secrets, and
import prints which to set. When something cannot be converted, import
writes nothing and exits 1 with a diagnostic for each problem (the file,
the JSON path, the node and why); with --partial it writes the flows anyway,
each part it could not convert a step that fails with that message.
docs/import.md says what maps to what.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.Args(args); err != nil {
				return err
			}
			return runImport(s, a.Files, importOptions{from: a.From, out: a.Out, blocks: a.Blocks, partial: a.Partial, json: a.JSON, force: a.Force})
		},
	}
	a.Flags(cmd.Flags())
	return cmd
}

type importOptions struct {
	from, out, blocks    string
	partial, json, force bool
}

func runImport(s streams, args []string, o importOptions) error {
	view := views.NewImport(s.out, s.err, colorTerminal(s.err), o.json, o.partial)
	files := map[string]*hcl.File{}
	var diags hcl.Diagnostics
	read := func(name string) (importer.File, bool) {
		b, err := os.ReadFile(name)
		if err != nil {
			diags = append(diags, pathError(name, err))
			return importer.File{}, false
		}
		files[name] = &hcl.File{Bytes: b}
		return importer.File{Name: name, Bytes: b}, true
	}
	var sources, blockFiles []importer.File
	for _, a := range args {
		if f, ok := read(a); ok {
			sources = append(sources, f)
		}
	}
	if o.blocks != "" {
		defs, d := readBlockDefinitions(o.blocks)
		diags = append(diags, d...)
		for _, f := range defs {
			files[f.Name] = &hcl.File{Bytes: f.Bytes}
		}
		blockFiles = append(blockFiles, defs...)
	}
	if diags.HasErrors() {
		return view.Failed(files, diags)
	}
	res, d := importer.Import(sources, importer.Options{From: importer.Format(o.from), Blocks: blockFiles, Partial: o.partial})
	diags = append(diags, d...)
	if res == nil {
		return view.Failed(files, diags)
	}
	if d := checkImported(res.Files); d.HasErrors() {
		return view.Failed(files, append(diags, d...))
	}
	written, d := importer.Write(o.out, res.Files, o.force)
	if d.HasErrors() {
		return view.Refused(files, append(diags, d...))
	}
	return view.Written(files, diags, written, res)
}

// readBlockDefinitions reads the JSON files of --blocks: the file itself,
// or the *.json files directly inside the directory, in name order. The
// directory's files are read through an os.Root: a symbolic link that
// leads out of it is not followed.
func readBlockDefinitions(path string) ([]importer.File, hcl.Diagnostics) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, hcl.Diagnostics{pathError(path, err)}
	}
	if !info.IsDir() {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, hcl.Diagnostics{pathError(path, err)}
		}
		return []importer.File{{Name: path, Bytes: b}}, nil
	}
	root, err := os.OpenRoot(path)
	if err != nil {
		return nil, hcl.Diagnostics{pathError(path, err)}
	}
	defer root.Close()
	entries, err := fs.ReadDir(root.FS(), ".")
	if err != nil {
		return nil, hcl.Diagnostics{pathError(path, err)}
	}
	var out []importer.File
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
			diags = append(diags, pathError(name, err))
		default:
			out = append(out, importer.File{Name: name, Bytes: b})
		}
	}
	if len(out) == 0 && !diags.HasErrors() {
		diags = append(diags, pathError(path, &fs.PathError{Op: "read", Path: path, Err: errors.New("no *.json block definitions in the directory")}))
	}
	return out, diags
}

// checkImported compiles the generated flows, written to a temporary
// directory with their blocks, as validate would. A generated flow that
// does not validate is a fault of the importer; it is reported and
// nothing is written.
func checkImported(files []importer.File) hcl.Diagnostics {
	dir, err := os.MkdirTemp("", "flowctl-import-")
	if err != nil {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot check the flows", Detail: err.Error()}}
	}
	defer os.RemoveAll(dir)
	var flows []string
	for _, f := range files {
		path := filepath.Join(dir, filepath.FromSlash(f.Name))
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, f.Bytes, 0o644); err != nil {
			return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot check the flows", Detail: err.Error()}}
		}
		if strings.HasSuffix(f.Name, ".flow.hcl") {
			flows = append(flows, path)
		}
	}
	var diags hcl.Diagnostics
	for _, path := range flows {
		_, d := compiler.Compile(path, compiler.Options{Parser: lang.NewParser()})
		if d.HasErrors() {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Generated flow does not validate",
				Detail: fmt.Sprintf("flowctl import generated %s, which does not validate: %s This is a fault of flowctl import; please report it with the source file.",
					filepath.Base(path), sentence(firstError(d))),
			})
		}
	}
	return diags
}

func firstError(d hcl.Diagnostics) string {
	for _, e := range d {
		if e.Severity == hcl.DiagError {
			return e.Summary + ": " + e.Detail
		}
	}
	return ""
}
