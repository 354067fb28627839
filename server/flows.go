package server

import (
	"fmt"
	"net/http"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/lang/diagjson"
	"github.com/flowctl/flowctl/runtime"
	"github.com/zclconf/go-cty/cty"
)

// flowJSON is a flow in GET /v1/flows.
type flowJSON struct {
	Name        string                `json:"name"`
	File        string                `json:"file"`
	Description string                `json:"description,omitempty"`
	Inputs      []inputJSON           `json:"inputs"`
	Outputs     []string              `json:"outputs"`
	Errors      []diagjson.Diagnostic `json:"errors,omitempty"`
	// The graph, in GET /v1/flows/{flow} only: each step with its stage
	// and the steps it depends on, the critical path (by steps), and the
	// schedules and triggers.
	Steps        []graphStepJSON `json:"steps,omitempty"`
	CriticalPath []string        `json:"critical_path,omitempty"`
	Schedules    []scheduleJSON  `json:"schedules,omitempty"`
	Triggers     []triggerJSON   `json:"triggers,omitempty"`
}

// triggerJSON is a trigger: a webhook (method, path, verify, respond) or
// the end of another flow's runs (after_flow, status).
type triggerJSON struct {
	Name    string   `json:"name"`
	Method  string   `json:"method,omitempty"`
	Path    string   `json:"path,omitempty"`
	Verify  string   `json:"verify,omitempty"`
	Respond string   `json:"respond,omitempty"`
	After   string   `json:"after_flow,omitempty"`
	Status  []string `json:"status,omitempty"`
}

type graphStepJSON struct {
	Name      string   `json:"name"`
	Use       string   `json:"use"`
	Stage     int      `json:"stage"`
	DependsOn []string `json:"depends_on"`
	ForEach   bool     `json:"for_each,omitempty"`
	Approval  bool     `json:"approval,omitempty"`
}

type scheduleJSON struct {
	Name     string `json:"name"`
	Cron     string `json:"cron"`
	Timezone string `json:"timezone"`
}

type inputJSON struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Default     any    `json:"default,omitempty"`
	Required    bool   `json:"required"`
	Description string `json:"description,omitempty"`
	Sensitive   bool   `json:"sensitive,omitempty"`
}

func (s *Server) getFlows(w http.ResponseWriter, r *http.Request) {
	out := []flowJSON{}
	for _, e := range s.flows.list() {
		out = append(out, newFlowJSON(e, false))
	}
	writeJSON(w, http.StatusOK, map[string]any{"flows": out})
}

// getFlow is one flow with its graph.
func (s *Server) getFlow(w http.ResponseWriter, r *http.Request) {
	e := s.flows.get(r.PathValue("flow"))
	if e == nil {
		writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("There is no flow %q.", r.PathValue("flow")), nil, nil)
		return
	}
	writeJSON(w, http.StatusOK, newFlowJSON(e, true))
}

// newFlowJSON describes a flow: with graph, its steps, critical path and
// schedules too.
func newFlowJSON(e *flowEntry, graph bool) flowJSON {
	f := flowJSON{Name: e.name(), File: e.file, Inputs: []inputJSON{}, Outputs: []string{}}
	if e.diags.HasErrors() {
		f.Errors = diagjson.New(e.files, e.diags).Diagnostics
	}
	p := e.prog
	if p == nil {
		return f
	}
	f.Description = p.Flow.Description
	for _, in := range p.Inputs {
		ij := inputJSON{Name: in.Name, Type: in.Type.Type.FriendlyName(), Required: in.Default == cty.NilVal, Description: in.Description, Sensitive: in.Sensitive}
		if in.Default != cty.NilVal && !in.Sensitive {
			ij.Default = runtime.PlainJSON(in.Default)
		}
		f.Inputs = append(f.Inputs, ij)
	}
	for _, o := range p.Outputs {
		f.Outputs = append(f.Outputs, o.Name)
	}
	if !graph {
		return f
	}
	f.Steps, f.CriticalPath, f.Schedules = []graphStepJSON{}, compiler.Names(p.CriticalPath), []scheduleJSON{}
	for _, st := range p.Steps {
		f.Steps = append(f.Steps, graphStepJSON{Name: st.Name, Use: st.Use, Stage: st.Stage, DependsOn: compiler.Names(st.Deps),
			ForEach: st.ForEach != nil, Approval: st.Block != nil && st.Block.Builtin() && st.Block.Name == "approval"})
	}
	for _, sc := range p.Schedules {
		f.Schedules = append(f.Schedules, scheduleJSON{Name: sc.Name, Cron: sc.Cron, Timezone: sc.Location.String()})
	}
	f.Triggers = []triggerJSON{}
	for _, t := range p.Triggers {
		tj := triggerJSON{Name: t.Name}
		if w := t.Webhook; w != nil {
			tj.Method, tj.Path, tj.Verify, tj.Respond = w.Method, w.Path, w.Verify, t.Respond
			if t.Respond == lang.RespondOutput {
				tj.Respond = "output." + t.Output
			}
		} else {
			tj.After, tj.Status = t.OnRun.Flow, t.OnRun.Status
		}
		f.Triggers = append(f.Triggers, tj)
	}
	return f
}
