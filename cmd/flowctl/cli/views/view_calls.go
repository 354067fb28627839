package views

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime/state"
)

// Calls renders runs show --calls: a run's model calls (docs/llm.md,
// "Call traces"). For people, a table of the calls, each followed by its
// last message and its reply, cut to a line; as JSON, the calls whole.
type Calls interface {
	List(run *state.Run, step string, calls []state.Call) error
}

// NewCalls returns the view of runs show --calls.
func NewCalls(w io.Writer, jsonOut bool) Calls {
	if jsonOut {
		return callsJSON{w}
	}
	return callsHuman{w}
}

// callText is how much of a message or a reply a call's lines show.
const callText = 100

type callsHuman struct{ w io.Writer }

func (v callsHuman) List(run *state.Run, step string, calls []state.Call) error {
	of := fmt.Sprintf("run %s", run.ID)
	if step != "" {
		of = fmt.Sprintf("step %s of run %s", step, run.ID)
	}
	if len(calls) == 0 {
		fmt.Fprintf(v.w, "No model calls of %s are recorded.\n", of)
		return nil
	}
	fmt.Fprintf(v.w, "Model calls of %s: %d\n\n", of, len(calls))
	var tb table
	tb.row("#", "STEP", "ATTEMPT", "TRY", "MODEL", "STATUS", "TOKENS", "TOOK", "FIRST TOKEN")
	var total blocks.Usage
	for _, c := range calls {
		var mc blocks.ModelCall
		if err := json.Unmarshal(c.Data, &mc); err != nil {
			return fmt.Errorf("model call %d of run %s: %w", c.Seq, run.ID, err)
		}
		status, used, first := "-", "-", "-"
		if mc.Status != 0 {
			status = strconv.Itoa(mc.Status)
		}
		if mc.Usage != nil {
			total.Add(*mc.Usage)
			raw, _ := json.Marshal(mc.Usage)
			used = tokens(raw)
		}
		if mc.FirstTokenMS != nil {
			first = fmt.Sprintf("%dms", *mc.FirstTokenMS)
		}
		model := mc.Model
		if mc.Provider != "" {
			model = mc.Provider + "/" + model
		}
		tb.row(strconv.FormatInt(c.Seq, 10), InstanceLabel(c.Step, c.Instance), strconv.Itoa(mc.Attempt), strconv.Itoa(mc.Try), model, status, used, fmt.Sprintf("%dms", mc.DurationMS), first)
		if n := len(mc.Request.Messages); n > 0 {
			m := mc.Request.Messages[n-1]
			tb.text("      " + m.Role + ": " + lineOf(m.Content))
		}
		switch {
		case mc.Error != nil:
			tb.text("      error: " + lineOf(*mc.Error))
		case mc.Response != nil:
			tb.text("      reply: " + lineOf(*mc.Response))
		}
		for _, tc := range mc.ToolCalls {
			tb.text("      calls " + tc.Name + ": " + lineOf(tc.Arguments))
		}
	}
	tb.write(v.w)
	raw, _ := json.Marshal(total)
	if t := tokens(raw); t != "-" {
		t, _, _ = strings.Cut(t, " ")
		fmt.Fprintf(v.w, "\nTokens: %s in all.%s\n", t, costText(raw))
	}
	fmt.Fprintf(v.w, "\nflowctl runs show %s --calls --json has each call whole.\n", run.ID)
	return nil
}

// lineOf is a text on one line, control characters escaped, cut to
// callText characters.
func lineOf(s string) string {
	s = lang.EscapeControlLine(strings.Join(strings.Fields(s), " "))
	if r := []rune(s); len(r) > callText {
		return string(r[:callText]) + "…"
	}
	return s
}

type callsJSON struct{ w io.Writer }

// jsonCall is a call as runs show --calls --json writes it: its number,
// step and instance, and the call as recorded (blocks.ModelCall).
type jsonCall struct {
	Seq      int64           `json:"seq"`
	Step     string          `json:"step"`
	Instance string          `json:"instance"`
	Call     json.RawMessage `json:"call"`
}

func (v callsJSON) List(run *state.Run, _ string, calls []state.Call) error {
	out := struct {
		RunID string     `json:"run_id"`
		Calls []jsonCall `json:"calls"`
	}{RunID: run.ID, Calls: make([]jsonCall, 0, len(calls))}
	for _, c := range calls {
		out.Calls = append(out.Calls, jsonCall{c.Seq, c.Step, c.Instance, c.Data})
	}
	return WriteJSON(v.w, out)
}
