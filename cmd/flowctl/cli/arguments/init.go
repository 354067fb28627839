package arguments

import "github.com/spf13/pflag"

// Init is init [DIR].
type Init struct {
	Dir string // DIR; "." when none is given
}

// Flags adds init's flags: none.
func (a *Init) Flags(fs *pflag.FlagSet) {}

// Args reads DIR.
func (a *Init) Args(args []string) error {
	if err := maxArgs(args, 1); err != nil {
		return err
	}
	a.Dir = oneOr(args, ".")
	return nil
}
