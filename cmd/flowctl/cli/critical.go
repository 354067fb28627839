package cli

import (
	"fmt"

	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/state"
)

// timeCriticalPath makes prog's critical path the chain of steps that takes
// the most time (runtime.TimeCriticalPath). It returns what the durations
// came from, for people ("", when there were none: the path counts steps).
func timeCriticalPath(prog *compiler.Program, st *state.Store, ns string) string {
	total, byRecorded := runtime.TimeCriticalPath(prog, st, ns)
	switch {
	case total <= 0:
		return ""
	case byRecorded:
		return fmt.Sprintf("%s by the durations of the last successful run", views.FormatDuration(total))
	}
	return fmt.Sprintf("at least %s, by the durations sleep steps declare", views.FormatDuration(total))
}
