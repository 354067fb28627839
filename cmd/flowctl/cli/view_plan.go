package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/flowctl/flowctl/compiler"
)

// planView renders what applying a flow would do.
type planView interface {
	Plan(plan *compiler.Plan) error
}

var (
	_ planView = planHuman{}
	_ planView = planJSON{}
)

// planHuman prints the steps stage by stage with their actions, the counts
// and the critical path.
// With expand, the steps of the flows steps use follow them.
type planHuman struct {
	w      io.Writer
	expand bool
}

func (v planHuman) Plan(plan *compiler.Plan) error {
	writeHumanPlan(v.w, plan, v.expand)
	return nil
}

// planJSON prints the plan as one JSON object.
type planJSON struct {
	w      io.Writer
	expand bool
}

func (v planJSON) Plan(plan *compiler.Plan) error { return writeJSON(v.w, newJSONPlan(plan, v.expand)) }

type jsonPlan struct {
	FormatVersion string `json:"format_version"`
	Flow          string `json:"flow"`
	// LLMCalls is the least number of model calls the run would make;
	// null when a for_each count is known only at run time.
	LLMCalls     *int       `json:"llm_calls"`
	Stages       [][]string `json:"stages"`
	CriticalPath []string   `json:"critical_path"`
	// CriticalBy: how long the critical path takes, by what durations;
	// absent when it counts steps.
	CriticalBy string         `json:"critical_path_time,omitempty"`
	Steps      []jsonPlanStep `json:"steps"`
}

type jsonPlanStep struct {
	Name      string   `json:"name"`
	Use       string   `json:"use"`
	Engine    string   `json:"engine,omitempty"` // of a go block: interpreted or compiled
	Stage     int      `json:"stage"`
	Action    string   `json:"action"`
	Reason    string   `json:"reason,omitempty"`
	DependsOn []string `json:"depends_on"`
	// Tools are what an llm step may call, as flow.NAME and block.NAME,
	// at most MaxToolCalls times.
	Tools        []string `json:"tools,omitempty"`
	MaxToolCalls int      `json:"max_tool_calls,omitempty"`
	// Flow is the plan of the flow the step uses, with plan --expand.
	Flow *jsonPlan `json:"flow,omitempty"`
}

func newJSONPlan(plan *compiler.Plan, expand bool) jsonPlan {
	p := plan.Program
	out := jsonPlan{
		FormatVersion: jsonFormatVersion,
		Flow:          p.Flow.Name,
		Stages:        [][]string{},
		CriticalPath:  compiler.Names(p.CriticalPath),
		CriticalBy:    plan.CriticalTime,
		Steps:         []jsonPlanStep{},
	}
	for _, st := range p.Stages {
		out.Stages = append(out.Stages, compiler.Names(st))
	}
	if n, known := plan.LLMCalls(); known {
		out.LLMCalls = &n
	}
	for _, s := range plan.Steps {
		js := jsonPlanStep{
			Name: s.Name, Use: s.Use, Engine: engineOf(s.Step, p.GoEngine), Stage: s.Stage, Action: string(s.Action), Reason: s.Reason,
			DependsOn: compiler.Names(s.Deps), Tools: toolRefs(s.Step), MaxToolCalls: s.Step.ToolCallLimit(),
		}
		if s.FlowPlan != nil && expand {
			sub := newJSONPlan(s.FlowPlan, expand)
			js.Flow = &sub
		}
		out.Steps = append(out.Steps, js)
	}
	return out
}

var actionSymbols = map[compiler.Action]string{
	compiler.ActionRun:     "+ run",
	compiler.ActionCached:  "= cached",
	compiler.ActionUnknown: "~ unknown",
	compiler.ActionSkip:    "- skip",
	compiler.ActionApprove: "? approval",
}

func writeHumanPlan(w io.Writer, plan *compiler.Plan, expand bool) {
	p := plan.Program
	fmt.Fprintf(w, "Flow %q: %s in %s\n", p.Flow.Name, plural(len(p.Steps), "step", "steps"), plural(len(p.Stages), "stage", "stages"))
	for i, stage := range p.Stages {
		fmt.Fprintf(w, "\nStage %d\n", i+1)
		writePlanSteps(w, plan, stage, "  ", expand)
	}
	n := plan.Counts()
	approvals := ""
	if a := n[compiler.ActionApprove]; a > 0 {
		approvals = ", " + plural(a, "approval", "approvals")
	}
	fmt.Fprintf(w, "\nPlan: %d to run, %d cached, %d unknown, %d to skip%s.\n",
		n[compiler.ActionRun], n[compiler.ActionCached], n[compiler.ActionUnknown], n[compiler.ActionSkip], approvals)
	if len(p.CriticalPath) > 0 {
		how := plural(len(p.CriticalPath), "step", "steps")
		if plan.CriticalTime != "" {
			how += ", " + plan.CriticalTime
		}
		fmt.Fprintf(w, "Critical path: %s (%s)\n", strings.Join(compiler.Names(p.CriticalPath), " → "), how)
	}
	switch n, known := plan.LLMCalls(); {
	case !known:
		fmt.Fprintf(w, "LLM calls: at least %d, more for for_each steps known only at run time.\n", n)
	case n > 0:
		fmt.Fprintf(w, "LLM calls: %d (retries and re-asks add more).\n", n)
	}
}

// writePlanSteps prints a line for each of steps, as plan has it, each
// followed by the tools it may call and (plan --expand) the steps of the
// flow it uses, further indented.
func writePlanSteps(w io.Writer, plan *compiler.Plan, steps []*compiler.Step, indent string, expand bool) {
	byStep := map[*compiler.Step]*compiler.PlannedStep{}
	width := 0
	for _, s := range plan.Steps {
		byStep[s.Step] = s
		width = max(width, len(s.Name))
	}
	for _, st := range steps {
		s := byStep[st]
		line := fmt.Sprintf("%s%-10s %-*s  %s", indent, actionSymbols[s.Action], width, s.Name, stepLabel(st, plan.Program.GoEngine))
		if len(st.Deps) > 0 {
			line += "  ← " + strings.Join(compiler.Names(st.Deps), ", ")
		}
		if s.Reason != "" {
			line += "  (" + s.Reason + ")"
		}
		fmt.Fprintln(w, strings.TrimRight(line, " "))
		pad := indent + strings.Repeat(" ", 11+width+2)
		if len(st.Tools) > 0 {
			fmt.Fprintf(w, "%smay call %s (at most %s)\n", pad,
				strings.Join(toolRefs(st), ", "), plural(st.ToolCallLimit(), "time", "times"))
		}
		if sub := s.FlowPlan; sub != nil && expand {
			fmt.Fprintf(w, "%sflow %q: %s\n", pad, sub.Program.Flow.Name, plural(len(sub.Program.Steps), "step", "steps"))
			writePlanSteps(w, sub, sub.Program.Steps, pad+"  ", expand)
		}
	}
}

// toolRefs are the tools an llm step may call, as flow.NAME and
// block.NAME.
func toolRefs(s *compiler.Step) []string {
	var out []string
	for _, t := range s.Tools {
		out = append(out, t.Ref())
	}
	return out
}
