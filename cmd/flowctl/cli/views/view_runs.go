package views

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime/event"
	"github.com/flowctl/flowctl/runtime/state"
)

// Runs renders the recorded runs: a list, one run with its steps, or
// every instance of one step. waits are the open approvals of runs, by
// run ID.
type Runs interface {
	// List lists runs; depth is how far each is below the top-level
	// run listed before it (0 for a top-level run).
	List(runs []*state.Run, depth map[string]int, waits map[string][]*state.Approval) error
	Show(t *RunTree, waits []*state.Approval) error
	Step(runID, step string, rows []*state.StepResult) error
}

// RunTree is a run with its step results and the runs its step instances
// started (steps that use a flow, tool calls), by step instance label.
type RunTree struct {
	Run      *state.Run
	Steps    []*state.StepResult
	Children map[string][]*RunTree
	// Summaries are the steps of more than MaxListedInstances
	// instances, by the row that stands for each in Steps.
	Summaries map[*state.StepResult]*StepSummary
	// Outputs and FailedOutputs are the run's outputs, and those it has
	// no value for (runs show prints them).
	Outputs       map[string]any
	FailedOutputs []event.FailedOutput
	// Version and Paused: state.RunTree's.
	Version *state.RunVersion
	Paused  *state.Pause
}

var (
	_ Runs = runsHuman{}
	_ Runs = runsJSON{}
)

// NewRuns returns the view of runs: tables, or JSON.
func NewRuns(w io.Writer, jsonOut bool) Runs {
	if jsonOut {
		return runsJSON{w}
	}
	return runsHuman{w}
}

// runsHuman prints tables.
type runsHuman struct{ w io.Writer }

func (v runsHuman) List(runs []*state.Run, depth map[string]int, waits map[string][]*state.Approval) error {
	if len(runs) == 0 {
		fmt.Fprintln(v.w, "No runs recorded.")
		return nil
	}
	tw := tabwriter.NewWriter(v.w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tFLOW\tSTATUS\tSTARTED\tDURATION")
	for _, r := range runs {
		id := r.ID
		if d := depth[r.ID]; d > 0 {
			id = strings.Repeat("  ", d) + id + " (" + r.ParentStep + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", id, r.Flow, r.Status, r.StartedAt.Local().Format("2006-01-02 15:04:05"), runDuration(r))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	header := false
	for _, r := range runs {
		if r.Status != string(event.StatusWaiting) || len(waits[r.ID]) == 0 {
			continue
		}
		if !header {
			fmt.Fprintln(v.w, "\nWaiting for approval (decide with flowctl approve RUN STEP [--reject]):")
			header = true
		}
		for _, a := range waits[r.ID] {
			fmt.Fprintf(v.w, "  %s waits for %s\n", r.ID, approvalText(a))
		}
	}
	return nil
}

// approvalText is what an approval waits for: step, message, deadline.
func approvalText(a *state.Approval) string {
	text := fmt.Sprintf("%s: %s", InstanceLabel(a.Step, a.Instance), a.Message)
	if !a.Deadline.IsZero() {
		text += fmt.Sprintf(" (until %s)", a.Deadline.Local().Format("2006-01-02 15:04"))
	}
	return text
}

// jsonWait is an open approval in runs --json.
type jsonWait struct {
	// Limit, of a queued run, is the limit of its flow it waits for
	// (`concurrency key "c-17"`); Step is empty then.
	Limit    string  `json:"limit,omitempty"`
	Step     string  `json:"step"`
	Instance string  `json:"instance"`
	Message  string  `json:"message"`
	Since    string  `json:"since"`
	Deadline *string `json:"deadline"`
}

func newJSONWaits(as []*state.Approval) []jsonWait {
	var out []jsonWait
	for _, a := range as {
		w := jsonWait{Step: a.Step, Instance: a.Instance, Message: a.Message, Since: JSONTime(a.RequestedAt)}
		if !a.Deadline.IsZero() {
			d := JSONTime(a.Deadline)
			w.Deadline = &d
		}
		out = append(out, w)
	}
	return out
}

func (v runsHuman) Show(t *RunTree, waits []*state.Approval) error {
	w, run, steps := v.w, t.Run, t.Steps
	fmt.Fprintf(w, "Run %s of flow %q: %s\n", run.ID, run.Flow, run.Status)
	for _, a := range waits {
		fmt.Fprintf(w, "Waits for %s\n", approvalText(a))
	}
	if limit := limitWait(run); limit != "" {
		fmt.Fprintf(w, "Waits for its turn: %s\n", limit)
	}
	if t.Paused != nil {
		fmt.Fprintf(w, "Paused since %s by %s: no step starts until flowctl runs resume %s\n", t.Paused.At.Local().Format("2006-01-02 15:04:05"), t.Paused.By, run.ID)
	}
	fmt.Fprintf(w, "Started %s, took %s, namespace %s\n", run.StartedAt.Local().Format("2006-01-02 15:04:05"), runDuration(run), run.Namespace)
	if v := t.Version; v != nil {
		fmt.Fprintf(w, "Version %s%s\n", ShortHash(v.Hash), commitText(v.Commit))
	}
	fmt.Fprintln(w)
	rows := newStepRows()
	failed := writeStepRows(rows, t, "")
	rows.tb.write(w)
	if t := tokens(run.Usage); t != "-" {
		t, _, _ = strings.Cut(t, " ")
		fmt.Fprintf(w, "\nTokens: %s in all.%s\n", t, costText(run.Usage))
	}
	writeStepOutputs(w, steps)
	if len(t.Summaries) > 0 {
		fmt.Fprintf(w, "\nSteps of more than %d instances:\n", MaxListedInstances)
		writeSummaryOutputs(w, run.ID, t.Summaries)
	}
	writeLogged(w, run.ID, steps)
	if len(t.Outputs) > 0 {
		fmt.Fprintln(w, "\nOutputs:")
		writeOutputs(w, storedOutputs(t.Outputs))
	}
	writeFailedOutputs(w, t.FailedOutputs)
	// The run's error repeats the first failure of a step, shown above:
	// it is shown when no step failed (a timeout, a memory not saved).
	if run.Error != "" && !failed {
		fmt.Fprintf(w, "\nError:\n%s\n", indent(lang.EscapeControl(run.Error), "  "))
	}
	return nil
}

// writeStepRows adds a row for each step instance of t, each followed by
// the runs it started: a line naming the run, then its steps, indented; a
// step of many instances is one row of counts (runs_scale.go). A failed
// instance has its error in full under its row, unless an instance of the
// step failed the same way before it: its row says which, and under the
// step's last row how many failed as each did. It reports whether a step
// failed.
func writeStepRows(r *stepRows, t *RunTree, prefix string) bool {
	failed := false
	for i, sr := range t.Steps {
		if s := t.Summaries[sr]; s != nil {
			writeSummaryRow(r.tb, prefix, s)
			failed = failed || s.Instances > s.Succeeded()
			continue
		}
		if r.instance(prefix, t.Run.ID, sr) {
			failed = true
		}
		if i+1 == len(t.Steps) || t.Steps[i+1].Step != sr.Step {
			r.sameWay(prefix, sr.Step)
		}
		for _, kid := range t.Children[sr.Label()] {
			r.tb.row(fmt.Sprintf("%s  run %s of flow %q (%s)", prefix, kid.Run.ID, kid.Run.Flow, kid.Run.Origin),
				kid.Run.Status, "", runDuration(kid.Run), tokens(kid.Run.Usage), "")
			if writeStepRows(r, kid, prefix+"    ") {
				failed = true
			}
		}
	}
	return failed
}

// stepRows are the rows of step instances in a table, each failure once.
type stepRows struct {
	tb       *table
	failures sameFailures
	same     map[string][]string // the instances that failed as each first did
}

func newStepRows() *stepRows {
	tb := &table{}
	tb.row("STEP", "STATUS", "ATTEMPTS", "DURATION", "TOKENS", "")
	return &stepRows{tb: tb, failures: sameFailures{}, same: map[string][]string{}}
}

// instance adds a step instance's row of run runID: its error in full
// under it, or which instance failed the same way before it. It reports
// whether the instance failed.
func (r *stepRows) instance(prefix, runID string, sr *state.StepResult) bool {
	label := sr.Label()
	note := ""
	first, same := "", false
	if sr.Error != "" {
		first, same = r.failures.first(runID+"\x00"+sr.Step, sr.Error, label)
	}
	if same {
		note = "failed the same way as " + first
		r.same[first] = append(r.same[first], label)
	}
	r.tb.row(prefix+label, sr.Status, strconv.Itoa(sr.Attempts), stepDuration(sr), tokens(sr.Usage), note)
	if sr.Error != "" && !same {
		var b strings.Builder
		writeIndented(&b, prefix+"      ", sr.Error)
		r.tb.text(strings.TrimSuffix(b.String(), "\n"))
	}
	return sr.Status == string(event.StatusFailed)
}

// sameWay adds, after the last row of step, how many of its instances
// failed as each first did.
func (r *stepRows) sameWay(prefix, step string) {
	var firsts []string
	for f := range r.same {
		if event.StepOfLabel(f) == step {
			firsts = append(firsts, f)
		}
	}
	event.SortLabels(firsts)
	for _, f := range firsts {
		r.tb.text(prefix + "      " + f + " and " + event.SameWay(r.same[f]))
		delete(r.same, f)
	}
}

// runsJSON prints JSON: an array of runs, or one run with its steps.
type runsJSON struct{ w io.Writer }

func (v runsJSON) List(runs []*state.Run, _ map[string]int, waits map[string][]*state.Approval) error {
	out := []jsonRun{}
	for _, r := range runs {
		jr := newJSONRun(r)
		jr.WaitingFor = append(jr.WaitingFor, newJSONWaits(waits[r.ID])...)
		out = append(out, jr)
	}
	return WriteJSON(v.w, out)
}

func (v runsJSON) Show(t *RunTree, waits []*state.Approval) error {
	out := newJSONRunSteps(t)
	out.WaitingFor = append(out.WaitingFor, newJSONWaits(waits)...)
	return WriteJSON(v.w, out)
}

// jsonRunSteps is a run with its steps in runs show --json; each step
// has the runs it started.
type JSONRunSteps struct {
	jsonRun
	Origin  string       `json:"origin,omitempty"`
	Version *jsonVersion `json:"version,omitempty"`
	Paused  *jsonPause   `json:"paused,omitempty"`
	Steps   []jsonStep   `json:"steps"`
	// Summarized are the steps of more than MaxListedInstances instances:
	// Steps lists only those of their instances that did not succeed.
	Summarized []jsonStepSummary `json:"summarized,omitempty"`
}

func newJSONRunSteps(t *RunTree) JSONRunSteps {
	out := JSONRunSteps{jsonRun: newJSONRun(t.Run), Origin: t.Run.Origin, Steps: []jsonStep{}, Summarized: newJSONSummaries(t.Summaries)}
	if v := t.Version; v != nil {
		out.Version = &jsonVersion{Hash: v.Hash, Commit: v.Commit}
	}
	if p := t.Paused; p != nil {
		out.Paused = &jsonPause{Since: JSONTime(p.At), By: p.By}
	}
	for _, sr := range t.Steps {
		if t.Summaries[sr] != nil {
			continue
		}
		js := newJSONStep(sr)
		for _, kid := range t.Children[sr.Label()] {
			js.Runs = append(js.Runs, newJSONRunSteps(kid))
		}
		out.Steps = append(out.Steps, js)
	}
	return out
}

func newJSONStep(sr *state.StepResult) jsonStep {
	return jsonStep{
		Step: sr.Step, Instance: sr.Instance, Status: sr.Status, Attempts: sr.Attempts,
		StartedAt: JSONTime(sr.StartedAt), DurationMS: sr.FinishedAt.Sub(sr.StartedAt).Milliseconds(),
		Outputs: plainStored(sr.Outputs), Sensitive: sr.Sensitive, Error: sr.Error, Usage: NonEmpty(sr.Usage), Log: sr.Log,
	}
}

// maxStepOutputWidth is how much of a step's outputs runs show prints on
// its line; runs show --json has them whole.
const maxStepOutputWidth = 120

type jsonRun struct {
	ID         string          `json:"id"`
	Flow       string          `json:"flow"`
	Namespace  string          `json:"namespace"`
	Status     string          `json:"status"`
	StartedAt  string          `json:"started_at"`
	FinishedAt *string         `json:"finished_at"`
	DurationMS *int64          `json:"duration_ms"`
	Inputs     json.RawMessage `json:"inputs,omitempty"`
	Outputs    json.RawMessage `json:"outputs,omitempty"`
	// FailedOutputs: the outputs a failed or cancelled run has no value
	// for, with the reason.
	FailedOutputs json.RawMessage `json:"failed_outputs,omitempty"`
	Error         string          `json:"error,omitempty"`
	Usage         json.RawMessage `json:"usage,omitempty"`
	// WaitingFor: the approvals a waiting run waits for.
	WaitingFor []jsonWait `json:"waiting_for,omitempty"`
	// ParentRun and ParentStep: the run and step instance that started
	// a run (runs list --all lists them).
	ParentRun  string `json:"parent_run,omitempty"`
	ParentStep string `json:"parent_step,omitempty"`
}

func newJSONRun(r *state.Run) jsonRun {
	jr := jsonRun{
		ID: r.ID, Flow: r.Flow, Namespace: r.Namespace, Status: r.Status, StartedAt: JSONTime(r.StartedAt),
		Inputs: NonEmpty(r.Inputs), Outputs: NonEmpty(r.Outputs), FailedOutputs: NonEmpty(r.FailedOutputs),
		Error: r.Error, Usage: NonEmpty(r.Usage), ParentRun: r.ParentRun, ParentStep: r.ParentStep,
	}
	if !r.FinishedAt.IsZero() {
		t, d := JSONTime(r.FinishedAt), r.FinishedAt.Sub(r.StartedAt).Milliseconds()
		jr.FinishedAt, jr.DurationMS = &t, &d
	}
	if limit := limitWait(r); limit != "" {
		jr.WaitingFor = []jsonWait{{Limit: limit, Message: "The run waits for its turn: " + limit + ".", Since: JSONTime(r.StartedAt)}}
	}
	return jr
}

// limitWait is the limit a queued run waits for, "" for none.
func limitWait(r *state.Run) string {
	if r.Status != state.StatusQueued {
		return ""
	}
	return r.WaitingFor
}

// stepDuration is how long a step instance ran, as apply shows it; "-"
// for one that did not run (cached, skipped) or has not finished.
func stepDuration(sr *state.StepResult) string {
	if sr.FinishedAt.IsZero() || sr.StartedAt.IsZero() || sr.Status == string(event.StatusCached) || sr.Status == string(event.StatusSkipped) {
		return "-"
	}
	return FormatDuration(sr.FinishedAt.Sub(sr.StartedAt))
}

func runDuration(r *state.Run) string {
	if r.FinishedAt.IsZero() {
		return "-"
	}
	return FormatDuration(r.FinishedAt.Sub(r.StartedAt))
}

type jsonStep struct {
	Step       string          `json:"step"`
	Instance   string          `json:"instance"`
	Status     string          `json:"status"`
	Attempts   int             `json:"attempts"`
	StartedAt  string          `json:"started_at"`
	DurationMS int64           `json:"duration_ms"`
	Outputs    json.RawMessage `json:"outputs,omitempty"`
	Sensitive  bool            `json:"sensitive,omitempty"`
	Error      string          `json:"error,omitempty"`
	Usage      json.RawMessage `json:"usage,omitempty"`
	Log        string          `json:"log,omitempty"`
	// Runs are the runs the step instance started: the flow it uses, the
	// flows its tool calls ran.
	Runs []JSONRunSteps `json:"runs,omitempty"`
}

// writeLogged names the step instances that printed something.
func writeLogged(w io.Writer, runID string, steps []*state.StepResult) {
	var logged []string
	for _, sr := range steps {
		if sr.Log != "" {
			logged = append(logged, fmt.Sprintf("%s (%s)", sr.Label(), Plural(strings.Count(sr.Log, "\n")+1, "line", "lines")))
		}
	}
	if len(logged) > 0 {
		fmt.Fprintf(w, "\nLogged: %s; flowctl runs logs %s prints them.\n", strings.Join(logged, ", "), runID)
	}
}

// writeStepOutputs prints what each step instance returned, one line each.
func writeStepOutputs(w io.Writer, steps []*state.StepResult) {
	header := false
	for _, sr := range steps {
		text := ""
		switch {
		case sr.Sensitive:
			text = "(sensitive)"
		case len(plainStored(sr.Outputs)) > 0:
			text = string(compactJSON(plainStored(sr.Outputs)))
		default:
			continue
		}
		if !header {
			fmt.Fprintln(w, "\nStep outputs:")
			header = true
		}
		fmt.Fprintf(w, "  %s = %s\n", sr.Label(), Cut(text, maxStepOutputWidth))
	}
}

// InstanceLabel is the label of a step instance: step, or step[instance]
// for an instance of a step with for_each.
func InstanceLabel(step, instance string) string {
	if instance == "" {
		return step
	}
	return step + "[" + instance + "]"
}

// compactJSON removes the insignificant spaces of JSON.
func compactJSON(raw json.RawMessage) []byte {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

// Cut shortens s to at most n runes, ending it with … when cut.
func Cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// plainStored turns a stored typed value into plain JSON.
func plainStored(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	var tv struct {
		Value json.RawMessage `json:"value"`
	}
	if json.Unmarshal(raw, &tv) != nil {
		return nil
	}
	return tv.Value
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

// tokens renders stored usage as its total, or "-".
func tokens(raw json.RawMessage) string {
	var u blocks.Usage
	if len(raw) == 0 || json.Unmarshal(raw, &u) != nil || u.TotalTokens == 0 {
		return "-"
	}
	if u.CostUSD != nil {
		return fmt.Sprintf("%d (%s)", u.TotalTokens, USD(*u.CostUSD))
	}
	return fmt.Sprint(u.TotalTokens)
}

// costText says what a run's model calls cost, "" when none had a price:
// " Cost: $0.0123 for 3 calls." and the calls left out for want of a
// price.
func costText(raw json.RawMessage) string {
	var u blocks.Usage
	if len(raw) == 0 || json.Unmarshal(raw, &u) != nil || u.CostUSD == nil {
		return ""
	}
	s := fmt.Sprintf(" Cost: %s for %s.", USD(*u.CostUSD), Plural(u.Calls-u.Unpriced, "call", "calls"))
	switch {
	case u.Unpriced == 1:
		s += " 1 call of a model without a price has no cost."
	case u.Unpriced > 1:
		s += fmt.Sprintf(" %d calls of models without a price have no cost.", u.Unpriced)
	}
	return s
}

// USD is an amount of US dollars as the views write it: four decimals
// ($0.0123).
func USD(v float64) string { return fmt.Sprintf("$%.4f", v) }

// Logs prints step logs: for people, a header per step instance and its
// lines; as JSON, one object per instance and line ({step, instance, line}).
type Logs interface {
	Log(sr *state.StepResult)
	Close() error
}

// NewLogs returns the view of runs logs: for people, or JSON lines.
func NewLogs(w io.Writer, jsonOut bool) Logs {
	if jsonOut {
		return &logsJSON{enc: json.NewEncoder(w)}
	}
	return logsHuman{w}
}

type logsHuman struct{ w io.Writer }

func (v logsHuman) Log(sr *state.StepResult) {
	fmt.Fprintf(v.w, "── %s (%s)\n", sr.Label(), sr.Status)
	fmt.Fprintln(v.w, lang.EscapeControl(sr.Log))
}

func (v logsHuman) Close() error { return nil }

type logsJSON struct{ enc *json.Encoder }

func (v *logsJSON) Log(sr *state.StepResult) {
	for _, line := range strings.Split(sr.Log, "\n") {
		v.enc.Encode(map[string]string{"step": sr.Step, "instance": sr.Instance, "line": line})
	}
}

func (v *logsJSON) Close() error { return nil }

// NonEmpty is raw, or nil when it is empty or JSON null.
func NonEmpty(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return raw
}
