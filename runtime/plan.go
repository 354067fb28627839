package runtime

import (
	"context"
	"slices"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// Plan says what applying the program would do, as far as the inputs and
// the result cache tell before running: each step would run, be reused from
// the cache, be skipped (its when is already false), or is unknown (its
// inputs depend on steps that must run first).
//
// With Options.Resume it is the plan of resuming the run RunID: which
// instances keep what the run recorded (compiler.ActionKept), and why the
// others run ("failed", "changed", …), as Apply would decide; nothing is
// written.
//
// A missing secret is an error, as it is for Apply: a plan promises a run
// that can start.
func Plan(prog *compiler.Program, opts Options) (*compiler.Plan, hcl.Diagnostics) {
	r, diags := newRun(prog, opts)
	if diags.HasErrors() {
		return nil, diags
	}
	if opts.Resume {
		if err := r.readPrior(); err != nil {
			return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot read the run", Detail: err.Error()}}
		}
	}
	mdiags, err := r.loadMemory()
	if err != nil {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot read the state", Detail: err.Error()}}
	}
	if mdiags.HasErrors() {
		return nil, mdiags
	}
	r.addDiags(mdiags)
	plan := &compiler.Plan{Program: prog, Inputs: opts.Inputs}
	planned := make([]*compiler.PlannedStep, len(prog.Steps))
	for _, st := range prog.Stages {
		for _, s := range st {
			if r.targeted != nil && !r.targeted[s.Index] {
				planned[s.Index] = &compiler.PlannedStep{Step: s, Instances: 1, Action: compiler.ActionSkip, Reason: "not targeted"}
				r.steps[s.Index].value = nullOutputs(s)
				continue
			}
			ps, value := r.planStep(s)
			planned[s.Index] = ps
			r.steps[s.Index].value = value
		}
	}
	plan.Steps = planned
	return plan, compiler.Normalize(r.diags)
}

// planStep decides one step's action and the value its dependents see: the
// cached (or kept) result when every instance is cached or kept, otherwise
// unknown.
func (r *run) planStep(s *compiler.Step) (*compiler.PlannedStep, cty.Value) {
	ps := &compiler.PlannedStep{Step: s, Instances: 1, ToRun: 1}
	unknownValue := s.Value
	var instances []instance
	isMap := false
	if s.ForEach == nil {
		instances = []instance{{key: NoKey}}
	} else {
		v, _, diags := r.scope.Eval(s.ForEach, nil)
		if diags.HasErrors() || !v.IsWhollyKnown() {
			ps.Action, ps.Reason, ps.Instances, ps.ToRun = compiler.ActionUnknown, "for_each known only at run time", -1, -1
			r.steps[s.Index].reran = true
			return ps, unknownValue
		}
		var d hcl.Diagnostics
		if instances, isMap, d = r.expand(s); d.HasErrors() {
			r.addDiags(d)
			ps.Action = compiler.ActionRun
			r.steps[s.Index].reran = true
			return ps, unknownValue
		}
	}
	ps.Instances = len(instances)
	if s.Flow != nil {
		ps.FlowPlan = r.planFlow(s, instances)
	}
	counts := map[compiler.Action]int{}
	vals := make([]cty.Value, len(instances))
	reason := ""
	whyAt := map[string]int{}
	parts := &compiler.PartCounts{}
	for i, inst := range instances {
		action, value, why := r.planInstance(s, inst, parts)
		counts[action]++
		vals[i] = value
		if reason == "" {
			reason = why
		}
		switch action {
		case compiler.ActionRun, compiler.ActionApprove, compiler.ActionUnknown:
			if s.ForEach != nil && len(ps.RunLabels) < compiler.MaxRunLabels {
				ps.RunLabels = append(ps.RunLabels, Label(s.Name, inst.key))
			}
			if why == "" {
				why = string(action)
			}
			if j, ok := whyAt[why]; ok {
				ps.Why[j].N++
			} else {
				whyAt[why] = len(ps.Why)
				ps.Why = append(ps.Why, compiler.ReasonCount{Reason: why, N: 1})
			}
		}
	}
	if *parts != (compiler.PartCounts{}) {
		ps.Embed = parts
	}
	// What needs running first, then what changed.
	slices.SortStableFunc(ps.Why, func(a, b compiler.ReasonCount) int { return reasonRank(a.Reason) - reasonRank(b.Reason) })
	ps.ToRun = counts[compiler.ActionRun] + counts[compiler.ActionApprove] + counts[compiler.ActionUnknown]
	ps.Kept, ps.Cached = counts[compiler.ActionKept], counts[compiler.ActionCached]
	switch {
	case counts[compiler.ActionApprove] > 0:
		ps.Action = compiler.ActionApprove
	case counts[compiler.ActionRun] > 0:
		ps.Action = compiler.ActionRun
	case counts[compiler.ActionUnknown] > 0:
		ps.Action = compiler.ActionUnknown
	case counts[compiler.ActionKept] > 0:
		ps.Action = compiler.ActionKept
	case counts[compiler.ActionCached] > 0:
		ps.Action = compiler.ActionCached
	default:
		ps.Action = compiler.ActionSkip
		reason = "when is false"
		if len(instances) == 0 {
			reason = "for_each is empty"
		}
	}
	if ps.Action == compiler.ActionRun || ps.Action == compiler.ActionUnknown || ps.Action == compiler.ActionApprove {
		// In a resumption, what depends on the step does not keep what
		// it recorded.
		r.steps[s.Index].reran = true
		ps.Reason = reason
		// A step plan computed (chunk) gives its dependents its value.
		if computed := !slices.Contains(vals, cty.NilVal); computed && ps.Action == compiler.ActionRun {
			if s.ForEach == nil {
				return ps, vals[0]
			}
			return ps, assemble(instances, vals, isMap)
		}
		return ps, unknownValue
	}
	if ps.Action == compiler.ActionSkip {
		ps.Reason = reason
	}
	if ps.Action == compiler.ActionKept {
		ps.Reason = "from the run's record"
	}
	if s.ForEach == nil {
		return ps, vals[0]
	}
	return ps, assemble(instances, vals, isMap)
}

// reasonRank orders the reasons instances of a resumed run run: those
// that did not finish, then those the change reaches.
func reasonRank(reason string) int {
	switch reason {
	case string(StatusFailed):
		return 0
	case string(StatusCancelled):
		return 1
	case string(StatusWaiting):
		return 2
	case "skipped before":
		return 3
	case "not started":
		return 4
	}
	return 5
}

func (r *run) planInstance(s *compiler.Step, inst instance, parts *compiler.PartCounts) (compiler.Action, cty.Value, string) {
	if r.prior != nil {
		if rec := r.keptRecord(s, inst); rec != nil {
			if v, err := DecodeValue(rec.Outputs); err == nil {
				return compiler.ActionKept, v, ""
			}
		}
	}
	action, value, why, key := r.planFresh(s, inst, parts)
	if r.prior == nil || action != compiler.ActionRun && action != compiler.ActionCached {
		return action, value, why
	}
	// A resumption: the instance keeps what it recorded when its block
	// and input values are the same (runInstance), else it runs, for the
	// reason its record gives.
	if rec := r.sameRecord(s, inst, key); rec != nil {
		if v, err := DecodeValue(rec.Outputs); err == nil {
			return compiler.ActionKept, v, ""
		}
	}
	if action == compiler.ActionCached {
		return action, value, why
	}
	return action, value, r.resumeReason(s, inst)
}

// planFresh is what running an instance would do, as far as its inputs
// and the cache tell: its action, its value when cached (or skipped), why
// it would run, and its cache key when it has one. It adds the parts the
// instance would do (embed's texts) to parts; a block that plan computes
// (blocks.Block.PlanTime: document, chunk) runs, and its value is returned with
// ActionRun.
func (r *run) planFresh(s *compiler.Step, inst instance, parts *compiler.PartCounts) (compiler.Action, cty.Value, string, string) {
	if s.When != nil {
		v, _, diags := r.scope.Eval(s.When, inst.each)
		if diags.HasErrors() {
			return compiler.ActionRun, cty.NilVal, "", ""
		}
		v, _ = v.UnmarkDeep()
		if !v.IsKnown() {
			return compiler.ActionUnknown, cty.NilVal, "when known only at run time", ""
		}
		if v.Type() == cty.Bool && !v.IsNull() && v.False() {
			return compiler.ActionSkip, nullOutputs(s), "", ""
		}
	}
	if isApproval(s) {
		return compiler.ActionApprove, cty.NilVal, "waits for a person's decision", ""
	}
	if s.Flow != nil && !s.CacheEnabled() {
		return compiler.ActionRun, cty.NilVal, "runs flow " + s.Flow.Flow.Name, ""
	}
	if !(r.opts.CacheAll || s.CacheEnabled()) {
		why := "block " + s.Block.Name + " is not cached"
		if s.Flow == nil && s.Block.PlanTime {
			return compiler.ActionRun, r.planCompute(s, inst), why, ""
		}
		return compiler.ActionRun, cty.NilVal, why, ""
	}
	inputs, marked, unknown, diags := r.evalInputs(s, inst, true)
	switch {
	case diags.HasErrors():
		return compiler.ActionRun, cty.NilVal, "", ""
	case unknown:
		if r.countsParts(s) {
			parts.Unknown++
		}
		return compiler.ActionUnknown, cty.NilVal, "inputs known only at run time", ""
	}
	call := &blocks.Call{Block: s.Block, Inputs: inputs, Outputs: s.Outputs, Dir: r.prog.Dir, Sensitive: marked}
	call.Provider, _ = r.provider(s)
	exec, err := r.opts.Executors.For(s.Block)
	if err != nil {
		return compiler.ActionRun, cty.NilVal, "", ""
	}
	sensitive := sensitiveResult(s, marked)
	// The parts the instance would do, and those the cache holds (none
	// for a sensitive one, which is not cached, or with --no-cache).
	var count *blocks.PartCount
	if pc, ok := exec.(blocks.PartCounter); ok {
		if r.opts.Store != nil && !sensitive {
			call.Cache = &partCache{store: r.opts.Store, flow: r.prog.Flow.Name, step: Label(s.Name, inst.key), read: !r.opts.NoCache}
		}
		if c, ok, err := pc.CountParts(call); ok && err == nil {
			count = &c
		}
		call.Cache = nil
	}
	addParts := func(action compiler.Action) {
		switch {
		case count == nil:
		case action == compiler.ActionCached:
			parts.Parts += count.Parts
			parts.Cached += count.Parts
		default:
			parts.Parts += count.Parts
			parts.Cached += count.Cached
			parts.New += count.New
		}
	}
	if sensitive {
		addParts(compiler.ActionRun)
		return compiler.ActionRun, cty.NilVal, "sensitive results are not cached", ""
	}
	action, value, why, key := r.planCached(s, call, exec)
	addParts(action)
	if action == compiler.ActionRun && s.Block.PlanTime {
		value = r.planCompute(s, inst)
	}
	return action, value, why, key
}

// countsParts reports whether plan counts the parts of s's instances
// (embed's texts).
func (r *run) countsParts(s *compiler.Step) bool {
	if s.Flow != nil || r.opts.Executors == nil {
		return false
	}
	exec, err := r.opts.Executors.For(s.Block)
	if err != nil {
		return false
	}
	_, ok := exec.(blocks.PartCounter)
	return ok
}

// planCompute runs an instance of a block that plan computes (chunk:
// local, quick, the same result for the same inputs) and returns its
// value; cty.NilVal when its inputs are known only at run time, are
// sensitive, or it fails (the run reports it).
func (r *run) planCompute(s *compiler.Step, inst instance) cty.Value {
	inputs, marked, unknown, diags := r.evalInputs(s, inst, true)
	if diags.HasErrors() || unknown || len(marked) > 0 || r.opts.Executors == nil {
		return cty.NilVal
	}
	exec, err := r.opts.Executors.For(s.Block)
	if err != nil {
		return cty.NilVal
	}
	call := &blocks.Call{Block: s.Block, Inputs: inputs, Outputs: s.Outputs, Dir: r.prog.Dir, Step: Label(s.Name, inst.key)}
	res, err := exec.Execute(context.Background(), call)
	if err != nil || res == nil {
		return cty.NilVal
	}
	v, err := convertOutputs(s.Block, s.Outputs, call, res)
	if err != nil {
		return cty.NilVal
	}
	return v
}

// planCached is the action of an instance whose inputs are known, as the
// result cache tells: its action, its value when cached, why it would
// run, and its cache key.
func (r *run) planCached(s *compiler.Step, call *blocks.Call, exec blocks.Executor) (compiler.Action, cty.Value, string, string) {
	var key string
	var err error
	if r.opts.Store != nil {
		if key, err = r.cacheKey(s, call, exec); err != nil && r.opts.NoCache {
			return compiler.ActionRun, cty.NilVal, "--no-cache", ""
		} else if err != nil {
			return compiler.ActionRun, cty.NilVal, "", ""
		}
	}
	switch {
	case r.opts.NoCache:
		return compiler.ActionRun, cty.NilVal, "--no-cache", key
	case r.opts.Store == nil:
		return compiler.ActionRun, cty.NilVal, "not in the cache", ""
	}
	if v, _, ok, _ := r.cached(key); ok {
		return compiler.ActionCached, v, "", key
	}
	return compiler.ActionRun, cty.NilVal, "not in the cache", key
}

// planFlow plans the flow a step uses, with the arguments of its first
// instance as far as they are known (the others are unknown); nil when
// the step has no instance.
func (r *run) planFlow(s *compiler.Step, instances []instance) *compiler.Plan {
	inputs := map[string]cty.Value{}
	if len(instances) > 0 {
		var marked map[string]bool
		inputs, marked, _, _ = r.evalInputs(s, instances[0], true)
		for name := range marked {
			inputs[name] = inputs[name].Mark(lang.Sensitive)
		}
	}
	for _, in := range s.Flow.Inputs {
		if _, ok := inputs[in.Name]; !ok {
			inputs[in.Name] = cty.UnknownVal(in.Type.Type)
		}
	}
	plan, diags := Plan(s.Flow, r.childOptions(s.Flow, inputs))
	r.addDiags(diags)
	return plan
}
