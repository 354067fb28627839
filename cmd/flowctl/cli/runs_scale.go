package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/state"
)

// maxListedInstances is how many instances of one step runs show lists: a
// step with more (a for_each over 100,000 items) is shown as one row of
// counts by status, followed by the instances that did not succeed, at
// most this many. runs show RUN --step STEP lists every instance.
const maxListedInstances = 50

// stepSummary is a step that runs show summarizes.
type stepSummary struct {
	step      string
	counts    []state.StepCount // by status
	instances int
	listed    int // instances listed below the summary: those that did not succeed
}

// succeeded are the statuses of instances a summarized step does not list.
var succeeded = []string{string(runtime.StatusOK), string(runtime.StatusCached)}

// loadSteps reads what runs show shows of a run's steps: every step result
// of the steps with at most maxListedInstances instances; of the others a
// summary (by the row that stands for it in the order of the steps, a
// result of its own) and the instances that did not succeed.
func loadSteps(st *state.Store, runID string) ([]*state.StepResult, map[*state.StepResult]*stepSummary, error) {
	counts, err := st.StepCounts(runID)
	if err != nil {
		return nil, nil, err
	}
	var big []*stepSummary
	byStep := map[string]*stepSummary{}
	for _, c := range counts {
		s := byStep[c.Step]
		if s == nil {
			s = &stepSummary{step: c.Step}
			byStep[c.Step] = s
			big = append(big, s)
		}
		s.counts = append(s.counts, c)
		s.instances += c.Instances
	}
	big = keep(big, func(s *stepSummary) bool { return s.instances > maxListedInstances })
	if len(big) == 0 {
		steps, err := st.Steps(runID)
		return steps, nil, err
	}
	names := make([]string, len(big))
	for i, s := range big {
		names[i] = s.step
	}
	steps, err := st.StepResults(runID, state.StepQuery{Except: names})
	if err != nil {
		return nil, nil, err
	}
	summaries := map[*state.StepResult]*stepSummary{}
	for _, s := range big {
		var failed []string
		for _, c := range s.counts {
			if !slices.Contains(succeeded, c.Status) {
				failed = append(failed, c.Status)
			}
		}
		var listed []*state.StepResult
		if len(failed) > 0 {
			if listed, err = st.StepResults(runID, state.StepQuery{Step: s.step, Statuses: failed, Limit: maxListedInstances}); err != nil {
				return nil, nil, err
			}
		}
		s.listed = len(listed)
		row := &state.StepResult{Step: s.step, StartedAt: s.first(), FinishedAt: s.last()}
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

func (s *stepSummary) first() time.Time {
	var t time.Time
	for _, c := range s.counts {
		if !c.Started.IsZero() && (t.IsZero() || c.Started.Before(t)) {
			t = c.Started
		}
	}
	return t
}

func (s *stepSummary) last() time.Time {
	var t time.Time
	for _, c := range s.counts {
		if c.Finished.After(t) {
			t = c.Finished
		}
	}
	return t
}

func (s *stepSummary) attempts() int {
	n := 0
	for _, c := range s.counts {
		n = max(n, c.Attempts)
	}
	return n
}

// statusText is "99997 ok, 3 failed".
func (s *stepSummary) statusText() string {
	parts := make([]string, len(s.counts))
	for i, c := range s.counts {
		parts[i] = fmt.Sprintf("%d %s", c.Instances, c.Status)
	}
	return strings.Join(parts, ", ")
}

// writeSummaryRow adds a summarized step's row: its label with [*], the
// counts by status, the most attempts, the time from its first start to
// its last finish, and what is listed below it.
func writeSummaryRow(tb *table, prefix string, s *stepSummary) {
	listed := ""
	switch failed := s.instances - s.succeededCount(); {
	case s.listed > 0 && s.listed < failed:
		listed = fmt.Sprintf("; the first %d of the %d that did not succeed are listed below", s.listed, failed)
	case s.listed > 0:
		listed = "; those that did not succeed are listed below"
	}
	dur := "-"
	if f, l := s.first(), s.last(); !f.IsZero() && !l.IsZero() {
		dur = formatDuration(l.Sub(f))
	}
	tb.row(prefix+s.step+"[*]", s.statusText(), strconv.Itoa(s.attempts()), dur, "-", fmt.Sprintf("%d instances%s", s.instances, listed))
}

func (s *stepSummary) succeededCount() int {
	n := 0
	for _, c := range s.counts {
		if slices.Contains(succeeded, c.Status) {
			n += c.Instances
		}
	}
	return n
}

// writeSummaryOutputs says where the outputs of summarized steps are.
func writeSummaryOutputs(w io.Writer, runID string, summaries map[*state.StepResult]*stepSummary) {
	var steps []string
	for _, s := range summaries {
		steps = append(steps, s.step)
	}
	sort.Strings(steps)
	for _, step := range steps {
		fmt.Fprintf(w, "  %s[*]: flowctl runs show %s --step %s lists every instance, --json with its outputs\n", step, runID, step)
	}
}

// jsonStepSummary is a summarized step in runs show --json: its counts
// by status; its steps list only the instances that did not succeed.
type jsonStepSummary struct {
	Step      string         `json:"step"`
	Instances int            `json:"instances"`
	Statuses  map[string]int `json:"statuses"`
	Attempts  int            `json:"attempts"`
	StartedAt string         `json:"started_at,omitempty"`
	// DurationMS is from the first instance's start to the last one's
	// finish.
	DurationMS int64 `json:"duration_ms"`
	Listed     int   `json:"listed"`
}

func newJSONSummaries(summaries map[*state.StepResult]*stepSummary) []jsonStepSummary {
	var out []jsonStepSummary
	for _, s := range summaries {
		js := jsonStepSummary{Step: s.step, Instances: s.instances, Statuses: map[string]int{}, Attempts: s.attempts(), Listed: s.listed}
		for _, c := range s.counts {
			js.Statuses[c.Status] = c.Instances
		}
		if f, l := s.first(), s.last(); !f.IsZero() {
			js.StartedAt = jsonTime(f)
			if !l.IsZero() {
				js.DurationMS = l.Sub(f).Milliseconds()
			}
		}
		out = append(out, js)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Step < out[j].Step })
	return out
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
	if jsonOut {
		for i, sr := range rows {
			sep := ",\n"
			if i == 0 {
				sep = "[\n"
			}
			io.WriteString(w, sep)
			if err := writeJSONLine(w, newJSONStep(sr)); err != nil {
				return err
			}
		}
		_, err := io.WriteString(w, "\n]\n")
		return err
	}
	r := newStepRows()
	for _, sr := range rows {
		r.instance("", run.ID, sr)
	}
	r.sameWay("", step)
	r.tb.write(w)
	return nil
}

// writeJSONLine writes v as one line of JSON, without its newline.
func writeJSONLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}
