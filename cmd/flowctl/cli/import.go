package cli

import (
	"os"

	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/flowctl/flowctl/importer"
	_ "github.com/flowctl/flowctl/importer/agentflow" // the formats Import converts
	_ "github.com/flowctl/flowctl/importer/anythingllm"
	_ "github.com/flowctl/flowctl/importer/n8n"
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
			return runImport(s, a)
		},
	}
	a.Flags(cmd.Flags())
	return cmd
}

func runImport(s streams, o arguments.Import) error {
	view := views.NewImport(s.out, s.err, colorTerminal(s.err), o.JSON, o.Partial)
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
	for _, a := range o.Files {
		if f, ok := read(a); ok {
			sources = append(sources, f)
		}
	}
	if o.Blocks != "" {
		defs, d := importer.ReadBlockDefinitions(o.Blocks)
		diags = append(diags, d...)
		for _, f := range defs {
			files[f.Name] = &hcl.File{Bytes: f.Bytes}
		}
		blockFiles = append(blockFiles, defs...)
	}
	if diags.HasErrors() {
		return view.Failed(files, diags)
	}
	res, d := importer.Import(sources, importer.Options{From: importer.Format(o.From), Blocks: blockFiles, Partial: o.Partial})
	diags = append(diags, d...)
	if res == nil {
		return view.Failed(files, diags)
	}
	if d := importer.Check(res.Files); d.HasErrors() {
		return view.Failed(files, append(diags, d...))
	}
	written, d := importer.Write(o.Out, res.Files, o.Force)
	if d.HasErrors() {
		return view.Refused(files, append(diags, d...))
	}
	return view.Written(files, diags, written, res)
}
