package arguments

import "github.com/spf13/pflag"

// Validate is validate [PATH...].
type Validate struct {
	JSON bool // --json
	// Format is --format: human, json or github; "" is human, and --json
	// makes it json.
	Format     string
	Registries Registries
	GoEngine   string   // --go-engine
	Paths      []string // PATH...; "." when none is given
}

// Flags adds validate's flags.
func (a *Validate) Flags(fs *pflag.FlagSet) {
	fs.BoolVar(&a.JSON, "json", false, "print the result as one JSON object")
	fs.StringVar(&a.Format, "format", "", "output format: human, json or github (workflow annotations)")
	a.Registries.Flags(fs)
	fs.StringVar(&a.GoEngine, "go-engine", "", "check every go block for this engine: interpreted (yaegi) or compiled (vetted and built by the Go toolchain); default: "+EnvGoEngine+", else each block's own")
}

// Args reads the paths and checks the flags.
func (a *Validate) Args(args []string) error {
	switch {
	case a.JSON && a.Format != "":
		return Usagef("--json and --format cannot be used together")
	case a.Format != "" && a.Format != "github" && a.Format != "human" && a.Format != "json":
		return Usagef("unknown --format %q: use human, json or github", a.Format)
	}
	if a.JSON {
		a.Format = "json"
	}
	a.Paths = pathsOrDot(args)
	return checkGoEngine(a.GoEngine)
}
