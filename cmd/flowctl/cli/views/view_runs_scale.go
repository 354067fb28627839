package views

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/flowctl/flowctl/runtime/state"
)

// MaxListedInstances is how many instances of one step runs show lists
// (state.MaxListedInstances).
const MaxListedInstances = state.MaxListedInstances

// StepSummary is a step that runs show summarizes (state.LoadSteps).
type StepSummary = state.StepSummary

// statusText is "99997 ok, 3 failed".
func statusText(s *StepSummary) string {
	parts := make([]string, len(s.Counts))
	for i, c := range s.Counts {
		parts[i] = fmt.Sprintf("%d %s", c.Instances, c.Status)
	}
	return strings.Join(parts, ", ")
}

// writeSummaryRow adds a summarized step's row: its label with [*], the
// counts by status, the most attempts, the time from its first start to
// its last finish, and what is listed below it.
func writeSummaryRow(tb *table, prefix string, s *StepSummary) {
	listed := ""
	switch failed := s.Instances - s.Succeeded(); {
	case s.Listed > 0 && s.Listed < failed:
		listed = fmt.Sprintf("; the first %d of the %d that did not succeed are listed below", s.Listed, failed)
	case s.Listed > 0:
		listed = "; those that did not succeed are listed below"
	}
	dur := "-"
	if f, l := s.First(), s.Last(); !f.IsZero() && !l.IsZero() {
		dur = FormatDuration(l.Sub(f))
	}
	tb.row(prefix+s.Step+"[*]", statusText(s), strconv.Itoa(s.Attempts()), dur, "-", fmt.Sprintf("%d instances%s", s.Instances, listed))
}

// writeSummaryOutputs says where the outputs of summarized steps are.
func writeSummaryOutputs(w io.Writer, runID string, summaries map[*state.StepResult]*StepSummary) {
	var steps []string
	for _, s := range summaries {
		steps = append(steps, s.Step)
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

func newJSONSummaries(summaries map[*state.StepResult]*StepSummary) []jsonStepSummary {
	var out []jsonStepSummary
	for _, s := range summaries {
		js := jsonStepSummary{Step: s.Step, Instances: s.Instances, Statuses: map[string]int{}, Attempts: s.Attempts(), Listed: s.Listed}
		for _, c := range s.Counts {
			js.Statuses[c.Status] = c.Instances
		}
		if f, l := s.First(), s.Last(); !f.IsZero() {
			js.StartedAt = JSONTime(f)
			if !l.IsZero() {
				js.DurationMS = l.Sub(f).Milliseconds()
			}
		}
		out = append(out, js)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Step < out[j].Step })
	return out
}

// Step lists every instance of one step of a run, in the order of their
// keys: a table.
func (v runsHuman) Step(runID, step string, rows []*state.StepResult) error {
	r := newStepRows()
	for _, sr := range rows {
		r.instance("", runID, sr)
	}
	r.sameWay("", step)
	r.tb.write(v.w)
	return nil
}

// Step lists every instance of one step of a run: one JSON array of the
// instances with their outputs, one a line.
func (v runsJSON) Step(_, _ string, rows []*state.StepResult) error {
	for i, sr := range rows {
		sep := ",\n"
		if i == 0 {
			sep = "[\n"
		}
		io.WriteString(v.w, sep)
		if err := writeJSONLine(v.w, newJSONStep(sr)); err != nil {
			return err
		}
	}
	_, err := io.WriteString(v.w, "\n]\n")
	return err
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
