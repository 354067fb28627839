package cli

import (
	"fmt"
	"time"

	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/runtime/state"
)

// timeCriticalPath makes prog's critical path the chain of steps that takes
// the most time rather than the longest: by the durations of the flow's
// last successful run in st (nil: none), and for steps that have none, by
// the durations sleep steps declare. It returns what the durations came
// from, for people ("", when there were none: the path counts steps).
func timeCriticalPath(prog *compiler.Program, st *state.Store, ns string) string {
	recorded := map[string]time.Duration{}
	if st != nil {
		if run, err := st.LatestRun(prog.Flow.Name, ns, "ok"); err == nil && run != nil && run.SourceHash == prog.SourceHash {
			if steps, err := st.Steps(run.ID); err == nil {
				first, last := map[string]time.Time{}, map[string]time.Time{}
				for _, sr := range steps {
					if sr.StartedAt.IsZero() || sr.FinishedAt.IsZero() {
						continue
					}
					if f, ok := first[sr.Step]; !ok || sr.StartedAt.Before(f) {
						first[sr.Step] = sr.StartedAt
					}
					if l, ok := last[sr.Step]; !ok || sr.FinishedAt.After(l) {
						last[sr.Step] = sr.FinishedAt
					}
				}
				for name, f := range first {
					recorded[name] = last[name].Sub(f) // the step's wall time, all its instances
				}
			}
		}
	}
	declared := false
	weight := func(s *compiler.Step) time.Duration {
		if d, ok := recorded[s.Name]; ok {
			return d
		}
		if d, ok := compiler.DeclaredDuration(s); ok {
			declared = true
			return d
		}
		return 0
	}
	path, total := prog.CriticalPathBy(weight)
	if total <= 0 {
		return ""
	}
	prog.CriticalPath = path
	switch {
	case len(recorded) > 0:
		return fmt.Sprintf("%s by the durations of the last successful run", views.FormatDuration(total))
	case declared:
		return fmt.Sprintf("at least %s, by the durations sleep steps declare", views.FormatDuration(total))
	}
	return ""
}
