package runtime

import (
	"time"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/runtime/state"
)

// TimeCriticalPath makes prog's critical path the chain of steps that
// takes the most time rather than the longest: by the durations of the
// flow's last successful run in st (nil: none) in the memory namespace
// ns, and for steps that have none, by the durations sleep steps
// declare. It returns the path's time, 0 when there were no durations
// (the path counts steps, and is left as it was), and whether it is by
// recorded durations (else by declared ones).
func TimeCriticalPath(prog *compiler.Program, st *state.Store, ns string) (total time.Duration, byRecorded bool) {
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
	weight := func(s *compiler.Step) time.Duration {
		if d, ok := recorded[s.Name]; ok {
			return d
		}
		if d, ok := compiler.DeclaredDuration(s); ok {
			return d
		}
		return 0
	}
	path, total := prog.CriticalPathBy(weight)
	if total <= 0 {
		return 0, false
	}
	prog.CriticalPath = path
	return total, len(recorded) > 0
}
