package arguments

import "github.com/spf13/pflag"

// MCP is mcp [DIR].
type MCP struct {
	Dir  Dir
	HTTP string   // --http HOST:PORT; "": standard input and output
	Only []string // --only: these flows
	Path string   // DIR; "." when none is given
}

// Flags adds mcp's flags.
func (a *MCP) Flags(fs *pflag.FlagSet) {
	fs.StringVar(&a.HTTP, "http", "", "serve over streamable HTTP on HOST:PORT instead of standard input and output")
	a.Dir.Flags(fs, "with --http: ")
	fs.StringSliceVar(&a.Only, "only", nil, "only these flows (comma-separated names)")
}

// Args reads DIR and checks the flags.
func (a *MCP) Args(args []string) error {
	if err := maxArgs(args, 1); err != nil {
		return err
	}
	a.Path = oneOr(args, ".")
	return a.Dir.Args(a.HTTP != "")
}
