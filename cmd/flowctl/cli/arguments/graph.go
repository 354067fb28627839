package arguments

import "github.com/spf13/pflag"

// Graph is graph [FLOW].
type Graph struct {
	Format     string // --format: dot or mermaid
	Expand     bool   // --expand
	Registries Registries
	Path       string // FLOW; "." when none is given
}

// Flags adds graph's flags.
func (a *Graph) Flags(fs *pflag.FlagSet) {
	fs.StringVar(&a.Format, "format", "dot", "dot or mermaid")
	fs.BoolVar(&a.Expand, "expand", false, "draw the steps of the flows that steps use, as clusters")
	a.Registries.Flags(fs)
}

// Args reads FLOW and checks the flags.
func (a *Graph) Args(args []string) error {
	if err := maxArgs(args, 1); err != nil {
		return err
	}
	a.Path = oneOr(args, ".")
	if a.Format != "dot" && a.Format != "mermaid" {
		return Usagef("unknown --format %q: use dot or mermaid", a.Format)
	}
	return nil
}
