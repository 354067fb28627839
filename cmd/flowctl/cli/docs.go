package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/compiler/flowdoc"
	"github.com/flowctl/flowctl/lang"
	"github.com/spf13/cobra"
)

func newDocsCommand(s streams) *cobra.Command {
	var a arguments.Docs
	cmd := &cobra.Command{
		Use:   "docs [PATH...] [--format markdown|json] [--out FILE] [--check]",
		Short: "Write documentation of flows and blocks from their source",
		Long: `Docs writes the documentation of every flow (*.flow.hcl) and block file
(*.block.hcl) under the paths (default: the current directory), recursively:
per flow its description, inputs, outputs, secrets, the blocks it uses,
schedules, approvals, the steps as a Mermaid diagram and its tests; per block
its inputs, outputs and examples. --out writes it to a file (paths in it are
relative to the file's directory); --check changes nothing and exits 1 when
that file is not what docs would write, for CI.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.Args(args); err != nil {
				return err
			}
			return runDocs(s, a.Paths, a.Format, a.Out, a.Check, a.Registries)
		},
	}
	a.Flags(cmd.Flags())
	return cmd
}

func runDocs(s streams, paths []string, format, out string, check bool, registries []string) error {
	base, _ := os.Getwd()
	if out != "" {
		base = filepath.Dir(lang.AbsPath(out))
	}
	d, files, diags := flowdoc.Collect(paths, registries, base, func(p *compiler.Program, g *flowdoc.StepGraph) string {
		var b bytes.Buffer
		views.WriteMermaid(&b, p, g)
		return b.String()
	})
	if diags.HasErrors() {
		return failDiags(files, diags)
	}
	var buf bytes.Buffer
	if format == "json" {
		if err := views.WriteJSON(&buf, d); err != nil {
			return err
		}
	} else {
		views.WriteDocsMarkdown(&buf, d)
	}
	switch {
	case check:
		old, err := os.ReadFile(out)
		if err != nil || !bytes.Equal(old, buf.Bytes()) {
			fmt.Fprintf(s.err, "%s is out of date: run flowctl docs %s --out %s\n", out, strings.Join(paths, " "), out)
			return exitError{exitFailure}
		}
		return nil
	case out != "":
		return lang.WriteFileAtomic(out, buf.Bytes())
	}
	_, err := s.out.Write(buf.Bytes())
	return err
}
