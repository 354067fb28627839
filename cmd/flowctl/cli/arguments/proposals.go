package arguments

import "github.com/spf13/pflag"

// Proposals is proposals [list | show ID | accept ID | reject ID].
type Proposals struct {
	State       State
	JSON        bool   // --json
	AutoApprove bool   // --auto-approve
	Sub         string // list, show, accept or reject
	ID          string // of show, accept and reject
}

// Flags adds proposals's flags.
func (a *Proposals) Flags(fs *pflag.FlagSet) {
	a.State.Flags(fs)
	fs.BoolVar(&a.JSON, "json", false, "print JSON")
	fs.BoolVar(&a.AutoApprove, "auto-approve", false, "accept a proposal that weakens the flow without asking for confirmation")
}

// Args reads the subcommand and its ID.
func (a *Proposals) Args(args []string) error {
	if err := rangeArgs(args, 0, 2); err != nil {
		return err
	}
	var err error
	a.Sub, a.ID, err = recordSubcommand("proposals", "proposal", args, "show", "accept", "reject")
	return err
}
