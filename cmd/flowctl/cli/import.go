package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/importer"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/spf13/cobra"
)

func newImportCommand(s streams) *cobra.Command {
	var from, out, blocksPath string
	var partial, jsonOut bool
	cmd := &cobra.Command{
		Use:   "import [--from anythingllm|agentflow|n8n] [--out DIR] [--blocks DIR] [--partial] [--json] FILE...",
		Short: "Convert AnythingLLM agent flows, AgentFlow pipelines and n8n workflows into flows",
		Long: `Import converts each FILE into a flow: an AnythingLLM agent flow, an
AgentFlow pipeline (its blocks from --blocks, a directory of JSON block
definitions or one JSON file holding a list) or an n8n workflow. The format
is detected from each file's shape; --from forces it.

It writes DIR/NAME.flow.hcl (NAME in snake_case from the flow's name) and,
where blocks are needed, DIR/blocks/NAME.block.hcl (--out DIR, default .),
formatted and validated, each step with a comment naming the node or step
it came from. Credentials are never written: they become secrets, and
import prints which to set. When something cannot be converted, import
writes nothing and exits 1 with a diagnostic for each problem (the file,
the JSON path, the node and why); with --partial it writes the flows anyway,
each part it could not convert a step that fails with that message.
docs/import.md says what maps to what.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if from != "" && !slices.Contains(importer.Formats, importer.Format(from)) {
				return usagef("unknown --from %q: use anythingllm, agentflow or n8n", from)
			}
			return runImport(s, args, importOptions{from: from, out: out, blocks: blocksPath, partial: partial, json: jsonOut})
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "the source format: anythingllm, agentflow or n8n (default: detected)")
	cmd.Flags().StringVar(&out, "out", ".", "the directory to write the flows into")
	cmd.Flags().StringVar(&blocksPath, "blocks", "", "AgentFlow block definitions: a directory of JSON files, or a JSON file holding a list")
	cmd.Flags().BoolVar(&partial, "partial", false, "write the flows even when parts cannot be converted (those parts fail at run time)")
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the files written and the diagnostics as JSON")
	return cmd
}

type importOptions struct {
	from, out, blocks string
	partial, json     bool
}

func runImport(s streams, args []string, o importOptions) error {
	view := newImportView(s, o.json, o.partial)
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
		names, err := blockDefinitionFiles(o.blocks)
		if err != nil {
			diags = append(diags, pathError(o.blocks, err))
		}
		for _, n := range names {
			if f, ok := read(n); ok {
				blockFiles = append(blockFiles, f)
			}
		}
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
	var written []string
	for _, f := range res.Files {
		path := filepath.Join(o.out, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return view.Failed(files, append(diags, writeError(path, err)))
		}
		if err := os.WriteFile(path, f.Bytes, 0o644); err != nil {
			return view.Failed(files, append(diags, writeError(path, err)))
		}
		written = append(written, path)
	}
	return view.Written(files, diags, written, res)
}

// blockDefinitionFiles are the JSON files of --blocks: the file itself,
// or the *.json files directly inside the directory, in name order.
func blockDefinitionFiles(path string) ([]string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return []string{path}, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".json") {
			out = append(out, filepath.Join(path, e.Name()))
		}
	}
	if len(out) == 0 {
		return nil, &fs.PathError{Op: "read", Path: path, Err: errors.New("no *.json block definitions in the directory")}
	}
	return out, nil
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

func writeError(path string, err error) *hcl.Diagnostic {
	reason := err.Error()
	if pe, ok := err.(*fs.PathError); ok {
		reason = pe.Err.Error()
	}
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot write file",
		Detail: "The file " + path + " cannot be written: " + reason + "."}
}
