package thinker

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/llm"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/runtime/state"
)

// What explain tells the model of a failed run (ExplainContext), and how
// it keeps secrets from it (Redactor): shared by flowctl explain and
// serve's POST /v1/runs/{id}/explain.

// The budget of what explain sends: each value, log and source file is
// cut to its cap with a marker saying how much was left out.
const (
	explainValueCap  = 2000
	explainLogCap    = 3000
	explainSourceCap = 12000
	explainMaxSteps  = 5 // failed steps described; the others are named
)

// A Redactor replaces the values of a flow's secrets by (sensitive) in
// any text sent to a model.
type Redactor struct{ values []string }

// NewRedactor redacts the flow's secrets: their values as given (apply's
// --secret), else their environment variables.
func NewRedactor(prog *compiler.Program, given map[string]string) *Redactor {
	r := &Redactor{}
	for _, sec := range prog.Secrets {
		v, ok := given[sec.Name]
		if !ok {
			v = os.Getenv(sec.Env)
		}
		if len(v) >= 4 { // shorter values would redact ordinary text
			r.values = append(r.values, v)
		}
	}
	// The longest first, so that a secret containing another goes whole.
	sort.Slice(r.values, func(i, j int) bool { return len(r.values[i]) > len(r.values[j]) })
	return r
}

// Text is s with every secret's value replaced by (sensitive).
func (r *Redactor) Text(s string) string {
	for _, v := range r.values {
		s = strings.ReplaceAll(s, v, "(sensitive)")
	}
	return s
}

// RedactingModel redacts every message of a request before m gets it: a
// secret's value never reaches the model, whatever carried it (a log, an
// error, a fix sent back).
func RedactingModel(m Model, red *Redactor) Model { return &redactingModel{m, red} }

type redactingModel struct {
	m   Model
	red *Redactor
}

func (m *redactingModel) Ask(ctx context.Context, req llm.AskRequest) ([]byte, blocks.Usage, error) {
	req.System = m.red.Text(req.System)
	msgs := make([]llm.Message, len(req.Messages))
	for i, msg := range req.Messages {
		msg.Content = m.red.Text(msg.Content)
		msgs[i] = msg
	}
	req.Messages = msgs
	return m.m.Ask(ctx, req)
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// tail keeps the end of a log: its last n bytes, with a marker.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	start := len(s) - n
	for start < len(s) && !utf8Start(s[start]) {
		start++
	}
	return fmt.Sprintf("[cut: %d bytes before]…", start) + s[start:]
}

// capJSON is a recorded JSON value for the model: redacted, cut when
// large.
func capJSON(raw json.RawMessage, red *Redactor, sensitive bool) any {
	if sensitive {
		return "(sensitive)"
	}
	if len(raw) == 0 {
		return nil
	}
	s := red.Text(string(raw))
	if len(s) > explainValueCap {
		return CapText(s, explainValueCap)
	}
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return s
	}
	return v
}

// explainStep is a failed step as the flow has it.
type explainStep struct {
	Step      string `json:"step"`
	Status    string `json:"status"`
	Attempts  int    `json:"attempts"`
	Use       string `json:"use"`
	Source    string `json:"step_source"`
	BlockFile string `json:"block_file,omitempty"`
	Block     string `json:"block_source,omitempty"`
	// Instances counts a for_each step's instances by how they ended (no
	// keys: they come from the run's data): a fix of the step runs the
	// instances that succeeded again too.
	Instances map[string]int `json:"instances,omitempty"`
}

// recordedStep is what the run recorded of a failed step: data that
// pages, APIs, programs and the run's inputs put there.
type recordedStep struct {
	Step      string         `json:"step"`
	Instance  string         `json:"instance,omitempty"`
	Error     string         `json:"error"`
	DependsOn map[string]any `json:"depends_on_outputs,omitempty"`
	Log       string         `json:"log,omitempty"`
}

// ExplainContext is what explain tells the model of a run: the flow's
// source (and whether it changed since the run), the failed steps with
// their attempts, step source and their blocks' source; and apart, in
// recorded, what the run recorded — the run's and the steps' errors, the
// recorded outputs of the steps they depend on, their logs, the outputs
// the run computed — which the model is given as data, never as
// instructions (ExplainOptions.Recorded). Both are redacted, each part
// cut to its cap.
func ExplainContext(run *state.Run, prog *compiler.Program, steps []*state.StepResult, red *Redactor) (flow, recorded map[string]any, err error) {
	src, err := os.ReadFile(prog.Filename)
	if err != nil {
		return nil, nil, err
	}
	results := map[string]*state.StepResult{}
	var failed []*state.StepResult
	var others []string
	instances := map[string]map[string]int{} // step → status → instances
	for _, sr := range steps {
		if sr.Instance != "" {
			if instances[sr.Step] == nil {
				instances[sr.Step] = map[string]int{}
			}
			instances[sr.Step][sr.Status]++
		}
		if sr.Instance == "" || results[sr.Step] == nil {
			results[sr.Step] = sr
		}
		if failedStatus(sr.Status) {
			if len(failed) < explainMaxSteps {
				failed = append(failed, sr)
			} else {
				others = append(others, sr.Step)
			}
		}
	}
	var out []explainStep
	var data []recordedStep
	described := map[string]bool{}
	for _, sr := range failed {
		rs := recordedStep{Step: sr.Step, Instance: sr.Instance, Error: red.Text(sr.Error), Log: tail(red.Text(sr.Log), explainLogCap)}
		s := prog.StepsByName[sr.Step]
		if s != nil {
			for _, d := range s.Deps {
				if r := results[d.Name]; r != nil {
					if rs.DependsOn == nil {
						rs.DependsOn = map[string]any{}
					}
					rs.DependsOn[d.Name] = capJSON(r.Outputs, red, r.Sensitive)
				}
			}
		}
		data = append(data, rs)
		if described[sr.Step] {
			continue // another instance of a step described already
		}
		described[sr.Step] = true
		es := explainStep{Step: sr.Step, Status: sr.Status, Attempts: sr.Attempts, Instances: instances[sr.Step]}
		if s != nil {
			es.Use = s.Use
			es.Source = CapText(red.Text(sourceOf(src, s.DeclRange.Start.Byte, s.SrcEnd)), explainValueCap)
			if file := StepBlockFile(s); file != "" && file != prog.Filename {
				if b, err := os.ReadFile(file); err == nil {
					es.BlockFile = relFromFlow(prog, file)
					es.Block = CapText(red.Text(string(b)), explainSourceCap)
				}
			}
		}
		out = append(out, es)
	}
	flow = map[string]any{
		"run_id": run.ID, "flow": run.Flow, "status": run.Status,
		"flow_file": relFromFlow(prog, prog.Filename), "flow_source": CapText(red.Text(string(src)), explainSourceCap),
		"flow_changed_since_run": run.SourceHash != "" && run.SourceHash != prog.SourceHash,
		"failed_steps":           out,
	}
	if len(others) > 0 {
		flow["other_failed_steps"] = others
	}
	recorded = map[string]any{
		"run_error":        red.Text(run.Error),
		"failed_steps":     data,
		"outputs_computed": capJSON(run.Outputs, red, false),
	}
	return flow, recorded, nil
}

// failedStatus: a step or run that failed, was cancelled or interrupted.
func failedStatus(s string) bool { return s == "failed" || s == "cancelled" || s == "interrupted" }

// sourceOf is the text of a byte range of src.
func sourceOf(src []byte, start, end int) string {
	if start < 0 || end > len(src) || start >= end {
		return ""
	}
	return string(src[start:end])
}

// relFromFlow is a path from the flow's directory, with slashes.
func relFromFlow(prog *compiler.Program, path string) string {
	rel, err := RelTo(prog.Dir, path)
	if err != nil {
		return path
	}
	return filepath.ToSlash(rel)
}

// StepBlockFile is the file defining a step's block; "" for built-ins.
func StepBlockFile(s *compiler.Step) string {
	if s.Block == nil || s.Block.Def == nil {
		return ""
	}
	return s.Block.DeclRange().Filename
}

// RelTo is path relative to base, both made absolute first.
func RelTo(base, path string) (string, error) {
	ab, err := filepath.Abs(base)
	if err != nil {
		return "", err
	}
	ap, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	return filepath.Rel(ab, ap)
}
