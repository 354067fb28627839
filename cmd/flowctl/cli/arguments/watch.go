package arguments

import (
	"time"

	"github.com/spf13/pflag"
)

// Watch is watch [FLOW].
type Watch struct {
	Run      Run
	JSON     bool          // --json
	Debounce time.Duration // --debounce
	Test     bool          // --test: run the flow's tests after each apply
	Path     string        // FLOW; "." when none is given
}

// Flags adds watch's flags.
func (a *Watch) Flags(fs *pflag.FlagSet) {
	a.Run.RunFlags(fs)
	fs.BoolVar(&a.JSON, "json", false, "print each cycle's events as JSON lines, between cycle_started and cycle_finished")
	fs.DurationVar(&a.Debounce, "debounce", DefaultWatchDebounce, "how long to wait for the writes of a save to settle")
	fs.BoolVar(&a.Test, "test", false, "after each successful apply, run the flow's tests (*.test.hcl in its directory)")
}

// Args reads FLOW and checks the flags.
func (a *Watch) Args(args []string) error {
	if err := maxArgs(args, 1); err != nil {
		return err
	}
	a.Path = oneOr(args, ".")
	return a.Run.Args()
}
