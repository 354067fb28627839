package views

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/dustin/go-humanize"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/compiler/flowdoc"
)

// Plan renders what applying a flow would do.
type Plan interface {
	Plan(plan *compiler.Plan) error
}

var (
	_ Plan = planHuman{}
	_ Plan = planJSON{}
)

// NewPlan returns plan's view. With expand, the steps of the flows steps
// use follow them; model is the model of llm steps that name none
// (FLOWCTL_MODEL, else the default).
func NewPlan(w io.Writer, jsonOut, expand bool, model string) Plan {
	if jsonOut {
		return planJSON{w, expand, model}
	}
	return planHuman{w, expand, model}
}

// planHuman prints the steps stage by stage with their actions, the counts
// and the critical path.
// With expand, the steps of the flows steps use follow them.
// model is the model of llm steps that name none (FLOWCTL_MODEL).
type planHuman struct {
	w      io.Writer
	expand bool
	model  string
}

func (v planHuman) Plan(plan *compiler.Plan) error {
	WriteHumanPlan(v.w, plan, v.expand, v.model)
	return nil
}

// planJSON prints the plan as one JSON object.
type planJSON struct {
	w      io.Writer
	expand bool
	model  string
}

func (v planJSON) Plan(plan *compiler.Plan) error {
	return WriteJSON(v.w, NewJSONPlan(plan, v.expand, v.model))
}

// JSONPlan is plan --json's object, which plan files keep too.
type JSONPlan struct {
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
	Name   string `json:"name"`
	Use    string `json:"use"`
	Engine string `json:"engine,omitempty"` // of a go block: interpreted or compiled
	Stage  int    `json:"stage"`
	Action string `json:"action"`
	Reason string `json:"reason,omitempty"`
	// Instances is how many instances the step has, and InstancesToRun
	// how many of them would run; null when its for_each is known only
	// at run time. InstancesKept, in the plan of a resumption, are those
	// that keep what the run recorded; InstancesCached those the cache
	// holds.
	Instances       *int     `json:"instances"`
	InstancesToRun  *int     `json:"instances_to_run"`
	InstancesKept   int      `json:"instances_kept,omitempty"`
	InstancesCached int      `json:"instances_cached,omitempty"`
	DependsOn       []string `json:"depends_on"`
	// Tools are what an llm step may call, as flow.NAME and block.NAME,
	// at most MaxToolCalls times.
	Tools        []string `json:"tools,omitempty"`
	MaxToolCalls int      `json:"max_tool_calls,omitempty"`
	// Provider and Model are what an llm step calls: the provider it
	// names ("" for the environment's, OPENAI_BASE_URL) and its model
	// ("" when only the run knows it).
	Provider string `json:"provider,omitempty"`
	Model    string `json:"model,omitempty"`
	// Embed, for an embed step whose texts plan knows, is how many texts
	// it would embed: cached (their vectors are in the state) and new
	// (sent); texts_unknown counts the instances whose texts only the
	// run knows.
	Embed *jsonPlanParts `json:"embed,omitempty"`
	// Flow is the plan of the flow the step uses, with plan --expand.
	Flow *JSONPlan `json:"flow,omitempty"`
}

type jsonPlanParts struct {
	Texts            int `json:"texts"`
	Cached           int `json:"cached"`
	New              int `json:"new"`
	UnknownInstances int `json:"unknown_instances,omitempty"`
}

// NewJSONPlan is plan's JSON object; with expand, the steps that use a
// flow have its plan. model is the model of llm steps that name none.
func NewJSONPlan(plan *compiler.Plan, expand bool, model string) JSONPlan {
	p := plan.Program
	out := JSONPlan{
		FormatVersion: JSONFormatVersion,
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
			Name: s.Name, Use: s.Use, Engine: flowdoc.EngineOf(s.Step, p.GoEngine), Stage: s.Stage, Action: string(s.Action), Reason: s.Reason,
			DependsOn: compiler.Names(s.Deps), Tools: toolRefs(s.Step), MaxToolCalls: s.Step.ToolCallLimit(),
			InstancesKept: s.Kept, InstancesCached: s.Cached,
		}
		if s.Instances >= 0 {
			js.Instances, js.InstancesToRun = &s.Instances, &s.ToRun
		}
		if s.IsLLM() {
			if s.Step.Provider != nil {
				js.Provider = s.Step.Provider.Name
			}
			js.Model, _ = stepModel(s.Step, model)
		}
		if e := s.Embed; e != nil {
			js.Embed = &jsonPlanParts{Texts: e.Parts, Cached: e.Cached, New: e.New, UnknownInstances: e.Unknown}
		}
		if s.FlowPlan != nil && expand {
			sub := NewJSONPlan(s.FlowPlan, expand, model)
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
	compiler.ActionKept:    "= kept",
}

// WriteHumanPlan prints a plan for people (plan, and apply before it
// asks).
func WriteHumanPlan(w io.Writer, plan *compiler.Plan, expand bool, model string) {
	p := plan.Program
	fmt.Fprintf(w, "Flow %q: %s in %s\n", p.Flow.Name, Plural(len(p.Steps), "step", "steps"), Plural(len(p.Stages), "stage", "stages"))
	for i, stage := range p.Stages {
		fmt.Fprintf(w, "\nStage %d\n", i+1)
		writePlanSteps(w, plan, stage, "  ", expand, model)
	}
	n := plan.Counts()
	approvals := ""
	if a := n[compiler.ActionApprove]; a > 0 {
		approvals = ", " + Plural(a, "approval", "approvals")
	}
	if k := n[compiler.ActionKept]; k > 0 {
		approvals += fmt.Sprintf(", %d kept", k)
	}
	fmt.Fprintf(w, "\nPlan: %d to run, %d cached, %d unknown, %d to skip%s.\n",
		n[compiler.ActionRun], n[compiler.ActionCached], n[compiler.ActionUnknown], n[compiler.ActionSkip], approvals)
	if len(p.CriticalPath) > 0 {
		how := Plural(len(p.CriticalPath), "step", "steps")
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
func writePlanSteps(w io.Writer, plan *compiler.Plan, steps []*compiler.Step, indent string, expand bool, model string) {
	byStep := map[*compiler.Step]*compiler.PlannedStep{}
	width := 0
	for _, s := range plan.Steps {
		byStep[s.Step] = s
		width = max(width, len(s.Name))
	}
	for _, st := range steps {
		s := byStep[st]
		line := fmt.Sprintf("%s%-10s %-*s  %s", indent, actionSymbols[s.Action], width, s.Name, StepLabel(st, plan.Program.GoEngine))
		if len(st.Deps) > 0 {
			line += "  ← " + strings.Join(compiler.Names(st.Deps), ", ")
		}
		if c := instanceCounts(s); c != "" {
			line += "  " + c
		} else if s.Reason != "" {
			line += "  (" + s.Reason + ")"
		}
		fmt.Fprintln(w, strings.TrimRight(line, " "))
		pad := indent + strings.Repeat(" ", 11+width+2)
		if st.IsLLM() {
			fmt.Fprintf(w, "%scalls %s\n", pad, llmTarget(st, model))
		}
		if e := s.Embed; e != nil {
			line := fmt.Sprintf("embeds %s: %s cached, %s new", commaPlural(e.Parts, "text", "texts"), comma(e.Cached), comma(e.New))
			if e.Unknown > 0 {
				line += fmt.Sprintf("; the texts of %s known only at run time", commaPlural(e.Unknown, "instance", "instances"))
			}
			fmt.Fprintf(w, "%s%s\n", pad, line)
		}
		if len(st.Tools) > 0 {
			fmt.Fprintf(w, "%smay call %s (at most %s)\n", pad,
				strings.Join(toolRefs(st), ", "), Plural(st.ToolCallLimit(), "time", "times"))
		}
		if sub := s.FlowPlan; sub != nil && expand {
			fmt.Fprintf(w, "%sflow %q: %s\n", pad, sub.Program.Flow.Name, Plural(len(sub.Program.Steps), "step", "steps"))
			writePlanSteps(w, sub, sub.Program.Steps, pad+"  ", expand, model)
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

// instanceCounts says, for a step with for_each whose instances are
// known, how many would run and why, and how many are kept, cached or
// skipped: "1 of 5,000 instances to run (failed), 4,999 kept"; "" for
// other steps.
func instanceCounts(s *compiler.PlannedStep) string {
	if s.ForEach == nil || s.Instances < 0 || s.Action == compiler.ActionSkip && s.Instances == 0 || s.Reason == "not targeted" {
		return ""
	}
	var parts []string
	switch {
	case s.ToRun == 0:
		parts = append(parts, Plural(s.Instances, "instance", "instances")+":")
	case s.ToRun == s.Instances:
		parts = append(parts, fmt.Sprintf("%s to run (%s)", commaPlural(s.Instances, "instance", "instances"), whyText(s.Why)))
	default:
		parts = append(parts, fmt.Sprintf("%s of %s to run (%s)", comma(s.ToRun), commaPlural(s.Instances, "instance", "instances"), whyText(s.Why)))
	}
	var rest []string
	if s.Kept > 0 {
		rest = append(rest, comma(s.Kept)+" kept")
	}
	if s.Cached > 0 {
		rest = append(rest, comma(s.Cached)+" cached")
	}
	if skipped := s.Instances - s.ToRun - s.Kept - s.Cached; skipped > 0 {
		rest = append(rest, comma(skipped)+" skipped")
	}
	if s.ToRun == 0 {
		return parts[0] + " " + strings.Join(rest, ", ")
	}
	return strings.Join(append(parts, rest...), ", ")
}

// whyText is why instances would run: the reason, when they share it;
// else how many for each ("1 failed, 4,999 changed").
func whyText(why []compiler.ReasonCount) string {
	if len(why) == 1 {
		return why[0].Reason
	}
	parts := make([]string, len(why))
	for i, w := range why {
		parts[i] = comma(w.N) + " " + w.Reason
	}
	return strings.Join(parts, ", ")
}

// comma writes a count with thousands separators: 5,000.
func comma(n int) string { return humanize.Comma(int64(n)) }

// commaPlural is plural with thousands separators.
func commaPlural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return comma(n) + " " + many
}

// stepModel is the model an llm step calls: its own, else model (the
// default); "" and false when only the run knows it.
func stepModel(s *compiler.Step, model string) (string, bool) {
	m, known := s.Model()
	switch {
	case !known:
		return "", false
	case m == "":
		return model, true
	}
	return m, true
}

// envBaseURL is the environment variable of the llm provider's base URL
// (llm.EnvBaseURL; views_test.go checks that they agree).
const envBaseURL = "OPENAI_BASE_URL"

// llmTarget says what an llm step calls: "model llama3.1:8b of provider
// local", "model gpt-4o-mini of the environment's provider
// (OPENAI_BASE_URL)".
func llmTarget(s *compiler.Step, model string) string {
	m, known := stepModel(s, model)
	what := "model " + strconv.Quote(m)
	if !known {
		what = "the model its model argument gives at run time"
	}
	if s.Provider != nil {
		return what + " of provider " + s.Provider.Name
	}
	return what + " of the environment's provider (" + envBaseURL + ")"
}
