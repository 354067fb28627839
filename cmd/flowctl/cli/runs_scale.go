package cli

import (
	"io"
	"slices"
	"sort"

	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/state"
)

// succeeded are the statuses of instances a summarized step does not list.
var succeeded = []string{string(runtime.StatusOK), string(runtime.StatusCached)}

// loadSteps reads what runs show shows of a run's steps: every step result
// of the steps with at most views.MaxListedInstances instances; of the others a
// summary (by the row that stands for it in the order of the steps, a
// result of its own) and the instances that did not succeed.
func loadSteps(st *state.Store, runID string) ([]*state.StepResult, map[*state.StepResult]*views.StepSummary, error) {
	counts, err := st.StepCounts(runID)
	if err != nil {
		return nil, nil, err
	}
	var big []*views.StepSummary
	byStep := map[string]*views.StepSummary{}
	for _, c := range counts {
		s := byStep[c.Step]
		if s == nil {
			s = &views.StepSummary{Step: c.Step}
			byStep[c.Step] = s
			big = append(big, s)
		}
		s.Counts = append(s.Counts, c)
		s.Instances += c.Instances
	}
	big = keep(big, func(s *views.StepSummary) bool { return s.Instances > views.MaxListedInstances })
	if len(big) == 0 {
		steps, err := st.Steps(runID)
		return steps, nil, err
	}
	names := make([]string, len(big))
	for i, s := range big {
		names[i] = s.Step
	}
	steps, err := st.StepResults(runID, state.StepQuery{Except: names})
	if err != nil {
		return nil, nil, err
	}
	summaries := map[*state.StepResult]*views.StepSummary{}
	for _, s := range big {
		var failed []string
		for _, c := range s.Counts {
			if !slices.Contains(succeeded, c.Status) {
				failed = append(failed, c.Status)
			}
		}
		var listed []*state.StepResult
		if len(failed) > 0 {
			if listed, err = st.StepResults(runID, state.StepQuery{Step: s.Step, Statuses: failed, Limit: views.MaxListedInstances}); err != nil {
				return nil, nil, err
			}
		}
		s.Listed = len(listed)
		row := &state.StepResult{Step: s.Step, StartedAt: s.First(), FinishedAt: s.Last()}
		summaries[row] = s
		steps = insertByStart(steps, append([]*state.StepResult{row}, listed...))
	}
	return steps, summaries, nil
}

func keep[T any](s []T, f func(T) bool) []T {
	out := s[:0]
	for _, v := range s {
		if f(v) {
			out = append(out, v)
		}
	}
	return out
}

// insertByStart inserts rows, in their order, before the first result of
// steps that started after the first of rows.
func insertByStart(steps, rows []*state.StepResult) []*state.StepResult {
	at := rows[0].StartedAt
	i := sort.Search(len(steps), func(i int) bool {
		s := steps[i].StartedAt
		return !at.IsZero() && (s.IsZero() || s.After(at))
	})
	out := make([]*state.StepResult, 0, len(steps)+len(rows))
	out = append(out, steps[:i]...)
	out = append(out, rows...)
	return append(out, steps[i:]...)
}

// runsShowStep lists every instance of one step of a run, in the order of
// their keys: a table, or with --json one JSON array of the instances
// with their outputs, one a line.
func runsShowStep(w io.Writer, st *state.Store, run *state.Run, step string, jsonOut bool) error {
	rows, err := st.StepResults(run.ID, state.StepQuery{Step: step})
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		return failf("No such step", "Run %s recorded no step %q.", run.ID, step)
	}
	return views.NewRuns(w, jsonOut).Step(run.ID, step, rows)
}
