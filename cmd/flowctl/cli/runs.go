package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/flowctl/flowctl/runtime/state"
	"github.com/spf13/cobra"
)

// stateFlags locate the state of the runs and output commands.
type stateFlags struct {
	dir  string
	flow string
}

func (f *stateFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.dir, "state", "", "the state directory (default: .flowctl, or next to --flow)")
	cmd.Flags().StringVar(&f.flow, "flow", "", "a flow file or directory: use its state and only its runs")
}

// open opens the state and names the flow to filter by ("" for all).
func (f *stateFlags) open(s streams) (*state.Store, string, error) {
	dir, flowName := f.dir, ""
	if f.flow != "" {
		l := newFlowLoader(s, nil)
		prog, err := l.compile(f.flow)
		if err != nil {
			return nil, "", err
		}
		flowName = prog.Flow.Name
		if dir == "" {
			dir = filepath.Join(prog.Dir, ".flowctl")
		}
	}
	if dir == "" {
		dir = ".flowctl"
	}
	if !dirExists(dir) {
		return nil, "", failf("No state", "There is no state in %s: apply a flow first, or name its state with --state DIR or --flow FLOW.", dir)
	}
	st, err := state.Open(dir)
	if err != nil {
		return nil, "", stateError(dir, err)
	}
	return st, flowName, nil
}

func newRunsCommand(s streams) *cobra.Command {
	var f stateFlags
	var jsonOut bool
	var limit int
	cmd := &cobra.Command{
		Use:   "runs [list | show RUN_ID]",
		Short: "List recorded runs, or show one run's steps",
		Long: `Runs lists the runs recorded in the state, newest first, or shows one run
(a unique prefix of its id is enough) with every step instance's status,
attempts, timing and error.`,
		Args: cobra.RangeArgs(0, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) == 0 || (args[0] == "list" && len(args) == 1):
				return runsList(s, &f, limit, jsonOut)
			case args[0] == "show" && len(args) == 2:
				return runsShow(s, &f, args[1], jsonOut)
			case args[0] == "show":
				return usagef("runs show needs a run id")
			}
			return usagef("unknown runs subcommand %q: use list or show RUN_ID", args[0])
		},
	}
	f.register(cmd)
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print JSON")
	cmd.Flags().IntVar(&limit, "limit", 20, "list at most this many runs")
	return cmd
}

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
}

func newJSONRun(r *state.Run) jsonRun {
	jr := jsonRun{
		ID: r.ID, Flow: r.Flow, Namespace: r.Namespace, Status: r.Status, StartedAt: jsonTime(r.StartedAt),
		Inputs: nonEmpty(r.Inputs), Outputs: nonEmpty(r.Outputs), FailedOutputs: nonEmpty(r.FailedOutputs),
		Error: r.Error, Usage: nonEmpty(r.Usage),
	}
	if !r.FinishedAt.IsZero() {
		t, d := jsonTime(r.FinishedAt), r.FinishedAt.Sub(r.StartedAt).Milliseconds()
		jr.FinishedAt, jr.DurationMS = &t, &d
	}
	return jr
}

func nonEmpty(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return raw
}

func runsList(s streams, f *stateFlags, limit int, jsonOut bool) error {
	st, flow, err := f.open(s)
	if err != nil {
		return err
	}
	defer st.Close()
	runs, err := st.Runs(flow, limit)
	if err != nil {
		return err
	}
	if jsonOut {
		out := []jsonRun{}
		for _, r := range runs {
			out = append(out, newJSONRun(r))
		}
		return writeJSON(s.out, out)
	}
	if len(runs) == 0 {
		fmt.Fprintln(s.out, "No runs recorded.")
		return nil
	}
	tw := tabwriter.NewWriter(s.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tFLOW\tSTATUS\tSTARTED\tDURATION")
	for _, r := range runs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.ID, r.Flow, r.Status, r.StartedAt.Local().Format("2006-01-02 15:04:05"), runDuration(r))
	}
	return tw.Flush()
}

func runDuration(r *state.Run) string {
	if r.FinishedAt.IsZero() {
		return "-"
	}
	return r.FinishedAt.Sub(r.StartedAt).Round(time.Millisecond).String()
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
}

func runsShow(s streams, f *stateFlags, id string, jsonOut bool) error {
	st, _, err := f.open(s)
	if err != nil {
		return err
	}
	defer st.Close()
	run, err := st.Run(id)
	if err != nil {
		return runLookupError(err)
	}
	steps, err := st.Steps(run.ID)
	if err != nil {
		return err
	}
	if jsonOut {
		out := struct {
			jsonRun
			Steps []jsonStep `json:"steps"`
		}{jsonRun: newJSONRun(run), Steps: []jsonStep{}}
		for _, sr := range steps {
			out.Steps = append(out.Steps, jsonStep{
				Step: sr.Step, Instance: sr.Instance, Status: sr.Status, Attempts: sr.Attempts,
				StartedAt: jsonTime(sr.StartedAt), DurationMS: sr.FinishedAt.Sub(sr.StartedAt).Milliseconds(),
				Outputs: plainStored(sr.Outputs), Sensitive: sr.Sensitive, Error: sr.Error, Usage: nonEmpty(sr.Usage),
			})
		}
		return writeJSON(s.out, out)
	}
	fmt.Fprintf(s.out, "Run %s of flow %q: %s\n", run.ID, run.Flow, run.Status)
	fmt.Fprintf(s.out, "Started %s, took %s, namespace %s\n\n", run.StartedAt.Local().Format("2006-01-02 15:04:05"), runDuration(run), run.Namespace)
	tw := tabwriter.NewWriter(s.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "STEP\tSTATUS\tATTEMPTS\tDURATION\tTOKENS\tERROR")
	for _, sr := range steps {
		label := resultLabel(sr)
		msg := strings.ReplaceAll(sr.Error, "\n", " ")
		if len(msg) > 100 {
			msg = msg[:97] + "..."
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\n", label, sr.Status, sr.Attempts, sr.FinishedAt.Sub(sr.StartedAt).Round(time.Millisecond), tokens(sr.Usage), msg)
	}
	tw.Flush()
	if t := tokens(run.Usage); t != "-" {
		fmt.Fprintf(s.out, "\nTokens: %s in all.\n", t)
	}
	writeStepOutputs(s.out, steps)
	if outputs, failed, err := runOutputs(run); err == nil {
		if len(outputs) > 0 {
			fmt.Fprintln(s.out, "\nOutputs:")
			writeOutputs(s.out, outputs)
		}
		writeFailedOutputs(s.out, failed)
	}
	if run.Error != "" {
		fmt.Fprintf(s.out, "\nError:\n%s\n", indent(run.Error, "  "))
	}
	return nil
}

// maxStepOutputWidth is how much of a step's outputs runs show prints on
// its line; runs show --json has them whole.
const maxStepOutputWidth = 120

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
		fmt.Fprintf(w, "  %s = %s\n", resultLabel(sr), cut(text, maxStepOutputWidth))
	}
}

func resultLabel(sr *state.StepResult) string {
	if sr.Instance == "" {
		return sr.Step
	}
	return sr.Step + "[" + sr.Instance + "]"
}

// compactJSON removes the insignificant spaces of JSON.
func compactJSON(raw json.RawMessage) []byte {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

// cut shortens s to at most n runes, ending it with … when cut.
func cut(s string, n int) string {
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
	var u struct {
		Total int `json:"total_tokens"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &u) != nil || u.Total == 0 {
		return "-"
	}
	return fmt.Sprint(u.Total)
}

// runLookupError is the diagnostic of a run id that names no run, or
// several.
func runLookupError(err error) error {
	switch {
	case errors.Is(err, state.ErrAmbiguousRun):
		return failf("Ambiguous run ID", "%s", sentence(err.Error()))
	case errors.Is(err, state.ErrRunNotFound):
		return failf("Unknown run", "%s", sentence(err.Error()))
	}
	return err
}
