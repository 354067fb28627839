package arguments

import "github.com/spf13/pflag"

// Apply is apply [FLOW|PLAN.json] | apply --resume RUN_ID.
type Apply struct {
	Run         Run
	Engine      Engine
	JSON        bool   // --json
	AutoApprove bool   // --auto-approve
	Resume      string // --resume RUN_ID
	Flow        string // --flow: with --resume, the run's flow file
	// Path is FLOW or PLAN.json: "." when none is given; "" with --resume.
	Path string
}

// Flags adds apply's flags.
func (a *Apply) Flags(fs *pflag.FlagSet) {
	a.Run.RunFlags(fs)
	a.Run.KeepFlags(fs)
	a.Run.BudgetFlags(fs)
	a.Engine.Flags(fs)
	fs.BoolVar(&a.JSON, "json", false, "print the run's events as JSON lines")
	fs.BoolVar(&a.AutoApprove, "auto-approve", false, "run without asking for confirmation")
	fs.StringVar(&a.Resume, "resume", "", "continue this recorded run: steps that finished ok keep their results")
	fs.StringVar(&a.Flow, "flow", "", "with --resume: the run's flow file (default: the file the run recorded)")
}

// Args reads FLOW and checks the flags.
func (a *Apply) Args(args []string) error {
	if err := rangeArgs(args, 0, 1); err != nil {
		return err
	}
	if err := a.Engine.Args(); err != nil {
		return err
	}
	switch {
	case a.Resume != "" && len(args) > 0:
		return Usagef("apply --resume takes no FLOW: the run names its flow (use --flow to give its file)")
	case a.Resume == "" && a.Run.Upgrade:
		return Usagef("--upgrade resumes a run with the flow as it is now: use it with --resume RUN_ID")
	case a.Resume == "" && len(a.Run.KeepSucceeded) > 0:
		return Usagef("--keep-succeeded keeps the instances that succeeded in a run being resumed: use it with --resume RUN_ID")
	case a.Resume == "":
		a.Path = oneOr(args, ".")
	}
	return a.Run.Args()
}
