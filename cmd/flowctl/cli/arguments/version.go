package arguments

import "github.com/spf13/pflag"

// Version is version.
type Version struct {
	JSON bool // --json
}

// Flags adds version's flags.
func (a *Version) Flags(fs *pflag.FlagSet) {
	fs.BoolVar(&a.JSON, "json", false, "print the version as JSON")
}

// Args refuses arguments.
func (a *Version) Args(args []string) error { return noArgs(args, "flowctl version") }
