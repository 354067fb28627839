package arguments

import "github.com/spf13/pflag"

// Tools is tools [DIR].
type Tools struct {
	Format     string   // --format: openai, mcp or json-schema
	Only       []string // --only: these flows
	Registries Registries
	Dir        string // DIR; "." when none is given
}

// Flags adds tools's flags.
func (a *Tools) Flags(fs *pflag.FlagSet) {
	fs.StringVar(&a.Format, "format", ToolsOpenAI, "openai, mcp or json-schema")
	fs.StringSliceVar(&a.Only, "only", nil, "only these flows (comma-separated names)")
	a.Registries.Flags(fs)
}

// Args reads DIR and checks the flags.
func (a *Tools) Args(args []string) error {
	if err := maxArgs(args, 1); err != nil {
		return err
	}
	a.Dir = oneOr(args, ".")
	switch a.Format {
	case ToolsOpenAI, ToolsMCP, ToolsJSONSchema:
		return nil
	}
	return Usagef("unknown --format %q: use openai, mcp or json-schema", a.Format)
}
