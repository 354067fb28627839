package arguments

import "github.com/spf13/pflag"

// Docs is docs [PATH...].
type Docs struct {
	Format     string // --format: markdown or json
	Out        string // --out FILE
	Check      bool   // --check
	Registries Registries
	Paths      []string // PATH...; "." when none is given
}

// Flags adds docs's flags.
func (a *Docs) Flags(fs *pflag.FlagSet) {
	fs.StringVar(&a.Format, "format", "markdown", "markdown or json")
	fs.StringVar(&a.Out, "out", "", "write to this file instead of standard output")
	fs.BoolVar(&a.Check, "check", false, "change nothing; exit 1 when the --out file is out of date")
	a.Registries.Flags(fs)
}

// Args reads the paths and checks the flags.
func (a *Docs) Args(args []string) error {
	if a.Format != "markdown" && a.Format != "json" {
		return Usagef("unknown --format %q: use markdown or json", a.Format)
	}
	if a.Check && a.Out == "" {
		return Usagef("--check needs --out: the file to compare")
	}
	a.Paths = pathsOrDot(args)
	return nil
}
