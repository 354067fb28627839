package arguments

import "github.com/spf13/pflag"

// StateMigrate is state migrate.
type StateMigrate struct {
	State  string // --state
	DryRun bool   // --dry-run
}

// Flags adds state migrate's flags.
func (a *StateMigrate) Flags(fs *pflag.FlagSet) {
	fs.StringVar(&a.State, "state", "", stateHelp)
	fs.BoolVar(&a.DryRun, "dry-run", false, "print the SQL statements and change nothing")
}

// Args refuses arguments.
func (a *StateMigrate) Args(args []string) error { return noArgs(args, "flowctl state migrate") }
