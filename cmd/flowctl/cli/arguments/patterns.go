package arguments

import "github.com/spf13/pflag"

// Patterns is patterns [list | show ID | forget ID].
type Patterns struct {
	State State
	JSON  bool   // --json
	Sub   string // list, show or forget
	ID    string // of show and forget
}

// Flags adds patterns's flags.
func (a *Patterns) Flags(fs *pflag.FlagSet) {
	a.State.Flags(fs)
	fs.BoolVar(&a.JSON, "json", false, "print JSON")
}

// Args reads the subcommand and its ID.
func (a *Patterns) Args(args []string) error {
	if err := rangeArgs(args, 0, 2); err != nil {
		return err
	}
	var err error
	a.Sub, a.ID, err = recordSubcommand("patterns", "pattern", args, "show", "forget")
	return err
}
