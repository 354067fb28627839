package arguments

import "github.com/spf13/pflag"

// Plan is plan [FLOW] | plan --resume RUN_ID.
type Plan struct {
	Run      Run
	Resume   string // --resume RUN_ID
	Flow     string // --flow: with --resume, the run's flow file
	JSON     bool   // --json
	Detailed bool   // --detailed-exitcode
	Out      string // --out: save the plan to this file
	Expand   bool   // --expand
	// Path is FLOW: "." when none is given; "" with --resume.
	Path string
}

// Flags adds plan's flags.
func (a *Plan) Flags(fs *pflag.FlagSet) {
	a.Run.Flags(fs)
	a.Run.KeepFlags(fs)
	fs.StringVar(&a.Resume, "resume", "", "plan resuming this recorded run: which instances keep their results, which run and why")
	fs.StringVar(&a.Flow, "flow", "", "with --resume: the run's flow file (default: the file the run recorded)")
	fs.BoolVar(&a.JSON, "json", false, "print the plan as one JSON object")
	fs.BoolVar(&a.Detailed, "detailed-exitcode", false, "exit 2 when steps would run, 0 when none would")
	fs.StringVar(&a.Out, "out", "", "save the plan to this file for apply")
	fs.StringVar(&a.Run.GoEngine, "go-engine", "", goEngineUsage)
	fs.BoolVar(&a.Expand, "expand", false, "show the steps of the flows that steps use (use = \"flow.NAME\")")
}

// Args reads FLOW and checks the flags.
func (a *Plan) Args(args []string) error {
	if err := maxArgs(args, 1); err != nil {
		return err
	}
	switch {
	case a.Resume != "" && len(args) > 0:
		return Usagef("plan --resume takes no FLOW: the run names its flow (use --flow to give its file)")
	case a.Resume != "" && a.Out != "":
		return Usagef("plan --resume cannot be saved (--out): apply --resume RUN_ID resumes the run as planned")
	case a.Resume != "":
	case a.Run.Upgrade:
		return Usagef("--upgrade resumes a run with the flow as it is now: use it with --resume RUN_ID")
	case len(a.Run.KeepSucceeded) > 0:
		return Usagef("--keep-succeeded keeps the instances that succeeded in a run being resumed: use it with --resume RUN_ID")
	case a.Flow != "":
		return Usagef("--flow names the flow file of a run being resumed: use it with --resume RUN_ID, or give FLOW")
	default:
		a.Path = oneOr(args, ".")
	}
	return a.Run.Args()
}
