package arguments

import "github.com/spf13/pflag"

// Output is output [NAME].
type Output struct {
	State     State
	JSON      bool   // --json
	Namespace string // --namespace
	Run       string // --run RUN_ID
	Name      string // NAME; "": every output
}

// Flags adds output's flags.
func (a *Output) Flags(fs *pflag.FlagSet) {
	a.State.Flags(fs)
	fs.BoolVar(&a.JSON, "json", false, "print JSON")
	fs.StringVar(&a.Namespace, "namespace", "default", "the namespace of the run")
	fs.StringVar(&a.Run, "run", "", "read the outputs of this run (an id or a unique prefix), whatever its status")
}

// Args reads NAME.
func (a *Output) Args(args []string) error {
	if err := maxArgs(args, 1); err != nil {
		return err
	}
	a.Name = oneOr(args, "")
	return nil
}
