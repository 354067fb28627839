package cli

import (
	"io"
	"log"

	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/lsp"
	"github.com/spf13/cobra"
)

func newLSPCommand(s streams) *cobra.Command {
	var a arguments.LSP
	cmd := &cobra.Command{
		Use:   "lsp [--registry DIR]...",
		Short: "Serve the language server protocol over standard input and output",
		Long: `Lsp is flowctl's language server (LSP 3.17 over standard input and output),
for editors: diagnostics as validate gives them while you type, hover, completion,
definition, references, rename, code actions, formatting as fmt, symbols, semantic
tokens, inlay hints of step output types and code lenses. The workspace is the
folder the editor opens; registry directories come from --registry and from the
client's initialization options ({"registries": [...]}). See docs/editors.md.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.Args(args); err != nil {
				return err
			}
			return lsp.Serve(s.in, nopWriteCloser{s.out}, lsp.Options{
				RegistryDirs: a.Registries,
				Debounce:     a.Debounce,
				Log:          log.New(s.err, "flowctl lsp: ", log.LstdFlags),
				Version:      version(),
			})
		},
	}
	a.Flags(cmd.Flags())
	return cmd
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
