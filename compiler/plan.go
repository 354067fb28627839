package compiler

import (
	"github.com/flowctl/flowctl/lang"
	"github.com/zclconf/go-cty/cty"
)

// Action is what apply would do with a step.
type Action string

// Actions of a plan (docs/design.md, "Commands").
const (
	ActionRun     Action = "run"
	ActionCached  Action = "cached"
	ActionUnknown Action = "unknown"
	ActionSkip    Action = "skip"
	// ActionApprove: an approval step, which waits for a person's
	// decision.
	ActionApprove Action = "approval"
	// ActionKept: in the plan of a resumption, every instance of the
	// step keeps what the run recorded.
	ActionKept Action = "kept"
)

// Plan is what applying a program with given inputs would do, as far as it
// is known before running.
type Plan struct {
	Program *Program
	// CriticalTime says how long the critical path takes and by what
	// durations ("2.4s by the durations of the last successful run"); empty
	// when the path counts steps.
	CriticalTime string
	Inputs       map[string]cty.Value
	Steps        []*PlannedStep // in declaration order
}

// PlannedStep is one step of a plan.
type PlannedStep struct {
	*Step
	Action Action
	Reason string // why, for skip and unknown
	// Instances is how many instances would run (for_each), or -1 when the
	// for_each value is known only at run time.
	Instances int
	// ToRun is how many of its instances would run (or wait for a
	// decision, or may run: their inputs are known only at run time); the
	// others are cached, kept or skipped. -1 when Instances is.
	ToRun int
	// Kept, in the plan of a resumption, is how many of its instances
	// keep what the run recorded.
	Kept int
	// Cached is how many of its instances the cache holds.
	Cached int
	// Why says why its instances would run, with how many for each reason
	// ("not in the cache", or in a resumption "failed", "changed", …), in
	// the order the reasons first came.
	Why []ReasonCount
	// RunLabels are the labels (step[2], step["a"]) of the first
	// MaxRunLabels of its instances that would run; none for a step
	// without for_each.
	RunLabels []string
	// Embed, for a step whose block caches parts of its work (embed:
	// each text's vector), is how many parts its instances would do, as
	// far as plan knows them; nil for other steps, and when the step's
	// for_each is known only at run time.
	Embed *PartCounts
	// FlowPlan is the plan of the flow the step uses (use =
	// "flow.NAME"), with the arguments of its first instance as far as
	// they are known; nil for other steps.
	FlowPlan *Plan
}

// PartCounts are the parts (embed: texts) a step's instances would do:
// of Parts, the cache holds Cached and New would be sent; the parts of
// Unknown instances are known only at run time.
type PartCounts struct {
	Parts, Cached, New, Unknown int
}

// MaxRunLabels is how many of the instances that would run a plan names.
const MaxRunLabels = 20

// A ReasonCount is a reason instances of a step would run, and how many.
type ReasonCount struct {
	Reason string
	N      int
}

// Counts returns how many steps have each action.
func (p *Plan) Counts() map[Action]int {
	n := map[Action]int{}
	for _, s := range p.Steps {
		n[s.Action]++
	}
	return n
}

// WouldRun reports whether applying the plan would run any step.
func (p *Plan) WouldRun() bool {
	n := p.Counts()
	return n[ActionRun]+n[ActionUnknown]+n[ActionApprove] > 0
}

// LLMCalls counts the model calls a run would make at least: one per
// instance of each llm step that would run (retries and re-asks add more).
// known is false when some count is not known before the run.
func (p *Plan) LLMCalls() (n int, known bool) {
	known = true
	for _, s := range p.Steps {
		if s.FlowPlan != nil {
			// A step that uses a flow: its flow's calls, for each
			// instance.
			if s.Action == ActionSkip {
				continue
			}
			if s.Instances < 0 {
				known = false
				continue
			}
			m, k := s.FlowPlan.LLMCalls()
			n, known = n+m*s.Instances, known && k
			continue
		}
		if s.Block == nil || !(s.Block.Runtime == lang.RuntimeLLM || (s.Block.Builtin() && s.Block.Name == "llm")) {
			continue
		}
		if s.Action != ActionRun && s.Action != ActionUnknown {
			continue
		}
		if s.ToRun < 0 {
			known = false
			continue
		}
		n += s.ToRun
	}
	return n, known
}
