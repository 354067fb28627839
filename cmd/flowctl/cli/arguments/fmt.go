package arguments

import "github.com/spf13/pflag"

// Fmt is fmt [PATH...].
type Fmt struct {
	Check bool     // --check
	Diff  bool     // --diff
	Paths []string // PATH...; "." when none is given ("-": standard input)
}

// Flags adds fmt's flags.
func (a *Fmt) Flags(fs *pflag.FlagSet) {
	fs.BoolVar(&a.Check, "check", false, "change nothing; list files that need formatting and exit 1 if any do")
	fs.BoolVar(&a.Diff, "diff", false, "print the changes as a unified diff")
}

// Args reads the paths.
func (a *Fmt) Args(args []string) error {
	a.Paths = pathsOrDot(args)
	return nil
}
