package arguments

import (
	"time"

	"github.com/flowctl/flowctl/lang"
	"github.com/spf13/pflag"
)

// Runs is runs [list | show [RUN_ID] | logs [RUN_ID [STEP]] | retry RUN_ID
// | prune].
type Runs struct {
	State  State
	Prune  Prune
	JSON   bool   // --json
	Limit  int    // --limit: of list
	All    bool   // --all: of list
	Follow bool   // --follow: of logs
	Step   string // --step: of show
	Calls  bool   // --calls: of show
	// Sub is list, show, logs, retry, pause, resume or prune.
	Sub string
	// RunID is the run of show, logs ("latest" when none is given),
	// retry, pause and resume.
	RunID string
	// LogStep is the STEP of logs: only its instances' logs; "" for all.
	LogStep string
}

// Prune are the flags of runs prune.
type Prune struct {
	OlderThan string // --older-than, as given
	// Age is --older-than read; 0 when not given.
	Age    time.Duration
	Keep   int  // --keep
	DryRun bool // --dry-run
}

// Flags adds runs's flags.
func (a *Runs) Flags(fs *pflag.FlagSet) {
	a.State.Flags(fs)
	a.Prune.Flags(fs)
	fs.BoolVar(&a.JSON, "json", false, "print JSON")
	fs.IntVar(&a.Limit, "limit", 20, "list at most this many runs")
	fs.BoolVar(&a.All, "all", false, "runs list: each run followed by the runs its steps started (sub-flows, tool calls), indented")
	fs.BoolVar(&a.Follow, "follow", false, "runs logs: print each step's log as it finishes, until the run ends")
	fs.StringVar(&a.Step, "step", "", "runs show: list every instance of this step (a step of more than 50 instances is otherwise summarized); with --calls, the step's model calls")
	fs.BoolVar(&a.Calls, "calls", false, "runs show: the run's model calls, with their messages, replies, tokens, cost and timings")
}

// Flags adds the flags of runs prune.
func (p *Prune) Flags(fs *pflag.FlagSet) {
	fs.StringVar(&p.OlderThan, "older-than", "", "runs prune: delete the runs that started longer ago than this (30d, 12h, 90m)")
	fs.IntVar(&p.Keep, "keep", 0, "runs prune: keep the newest N runs of each flow, whatever their age")
	fs.BoolVar(&p.DryRun, "dry-run", false, "runs prune: say what would be deleted, and delete nothing")
}

// Args reads the subcommand and its arguments.
func (a *Runs) Args(args []string) error {
	if err := a.sub(args); err != nil {
		return err
	}
	if a.Calls && a.Sub != "show" {
		return Usagef("--calls lists a run's model calls: runs show [RUN_ID] --calls")
	}
	return nil
}

func (a *Runs) sub(args []string) error {
	if err := rangeArgs(args, 0, 3); err != nil {
		return err
	}
	switch {
	case len(args) == 3 && args[0] != "logs":
		return Usagef("runs %s takes at most one run id", args[0])
	case len(args) == 0 || (args[0] == "list" && len(args) == 1):
		a.Sub = "list"
		return nil
	case args[0] == "show" || args[0] == "logs":
		a.Sub, a.RunID = args[0], "latest"
		if len(args) >= 2 {
			a.RunID = args[1]
		}
		if len(args) == 3 {
			a.LogStep = args[2]
		}
		return nil
	case args[0] == "retry" && len(args) == 2:
		a.Sub, a.RunID = "retry", args[1]
		return nil
	case args[0] == "retry":
		return Usagef("runs retry needs a run id")
	case (args[0] == "pause" || args[0] == "resume") && len(args) == 2:
		a.Sub, a.RunID = args[0], args[1]
		return nil
	case args[0] == "pause" || args[0] == "resume":
		return Usagef("runs %s needs a run id", args[0])
	case args[0] == "prune" && len(args) == 1:
		a.Sub = "prune"
		return a.Prune.Args()
	}
	return Usagef("unknown runs subcommand %q: use list, show [RUN_ID], logs [RUN_ID [STEP]], retry RUN_ID, pause RUN_ID, resume RUN_ID or prune", args[0])
}

// Args checks the flags of runs prune, which deletes nothing by default.
func (p *Prune) Args() error {
	if p.Keep < 0 {
		return Usagef("--keep must be 0 or more")
	}
	if p.OlderThan != "" {
		age, err := lang.ParseAge(p.OlderThan)
		if err != nil {
			return Usagef("--older-than %q: %v", p.OlderThan, err)
		}
		p.Age = age
	}
	if p.Age == 0 && p.Keep == 0 {
		return Usagef("runs prune needs --older-than AGE or --keep N (or both): it deletes nothing by default")
	}
	return nil
}
