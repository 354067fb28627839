package arguments

import "github.com/spf13/pflag"

// Approve is approve RUN_ID STEP.
type Approve struct {
	Run      Run
	Engine   Engine // where Temporal is, for a run on Temporal
	Flow     string // --flow: the run's flow file
	Reject   bool   // --reject
	Comment  string // --comment
	By       string // --by; "": the user's login name
	Instance string // --instance: of a for_each approval step
	JSON     bool   // --json
	// Sets are --set NAME=VALUE: the values of the step's input fields.
	Sets  []string
	RunID string
	Step  string
}

// Flags adds approve's flags.
func (a *Approve) Flags(fs *pflag.FlagSet) {
	a.Run.RunFlags(fs)
	a.Engine.TemporalFlags(fs, "for a run on Temporal")
	fs.MarkHidden("namespace") // the run's own
	fs.Lookup("state").Usage = "the state directory (default: the project's .flowctl, as for apply, of the working directory or of --flow)"
	fs.StringVar(&a.Flow, "flow", "", "the run's flow file or directory (default: the file the run recorded)")
	fs.BoolVar(&a.Reject, "reject", false, "reject: the step fails")
	fs.StringVar(&a.Comment, "comment", "", "a comment kept with the decision (the step's comment output)")
	fs.StringVar(&a.By, "by", "", "who decides (default: the user's login name)")
	fs.StringVar(&a.Instance, "instance", "", "the instance of a for_each approval step: its index or key")
	fs.BoolVar(&a.JSON, "json", false, "print the continued run's events as JSON lines")
	fs.StringArrayVar(&a.Sets, "set", nil, "NAME=VALUE: the value of an input field of the approval step, checked against its type (repeatable)")
}

// Args reads RUN_ID and STEP and checks the flags.
func (a *Approve) Args(args []string) error {
	if err := exactArgs(args, 2); err != nil {
		return err
	}
	a.RunID, a.Step = args[0], args[1]
	return a.Run.Args()
}
