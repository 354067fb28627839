package arguments

import "github.com/spf13/pflag"

// Lock is lock [DIR] [--check].
type Lock struct {
	Dir   string // DIR; "." when none is given
	Check bool   // --check: change nothing, exit 1 when the lock is not complete
}

// Flags adds lock's flags.
func (a *Lock) Flags(fs *pflag.FlagSet) {
	fs.BoolVar(&a.Check, "check", false, "change nothing; exit 1 when the lock file is missing, out of date or for another platform")
}

// Args reads DIR.
func (a *Lock) Args(args []string) error {
	if err := maxArgs(args, 1); err != nil {
		return err
	}
	a.Dir = oneOr(args, ".")
	return nil
}
