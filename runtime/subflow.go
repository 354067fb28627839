package runtime

import (
	"context"
	"errors"
	"fmt"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/zclconf/go-cty/cty"
)

// flowExecutor runs the flow a step uses as its block (use = "flow.NAME")
// as a run of its own, recorded under the step's run: the step's
// arguments are the flow's inputs and its outputs the flow's.
type flowExecutor struct {
	r    *run
	step *compiler.Step
}

func (e flowExecutor) Execute(ctx context.Context, call *blocks.Call) (*blocks.Result, error) {
	given := make(map[string]compiler.InputValue, len(call.Inputs))
	for name, v := range call.Inputs {
		given[name] = compiler.InputValue{Value: v, Source: "step " + call.Step}
	}
	prog := e.step.Flow
	res, err := e.r.runFlow(ctx, prog, given, call.Sensitive, "flow", call.Step, e.r.childReplacer(e.step, ""))
	if res != nil && call.Log != nil {
		call.Log(fmt.Sprintf("flow %s ran as run %s (%s)", prog.Flow.Name, res.RunID, res.Status))
	}
	if err != nil {
		return nil, err
	}
	out := make(map[string]cty.Value, len(res.Outputs))
	for name, v := range res.Outputs {
		out[name], _ = v.UnmarkDeep()
	}
	return &blocks.Result{Outputs: out, Usage: res.Usage}, nil
}

// runFlow runs prog as a run started by step (a step instance label) of
// this run, with the given inputs (those named in sensitive marked so),
// the secrets prog declares, and this run's store, cache and executors.
// Its steps are replaced as replace says. A run that does not end ok is
// an error naming it and what failed; the result is returned with it when
// the run started.
func (r *run) runFlow(ctx context.Context, prog *compiler.Program, given map[string]compiler.InputValue,
	sensitive map[string]bool, origin, step string, replace Replacer) (*Result, error) {
	inputs, diags := prog.ResolveInputs(given)
	if diags.HasErrors() {
		return nil, fmt.Errorf("the values do not fit the inputs of flow %s: %s", prog.Flow.Name, lang.ErrorSentence(diags, false))
	}
	for name := range sensitive {
		if v, ok := inputs[name]; ok {
			inputs[name] = v.Mark(lang.Sensitive)
		}
	}
	opts := r.childOptions(prog, inputs)
	opts.Parallelism, opts.OnFileRead, opts.Ask = r.opts.Parallelism, r.opts.OnFileRead, r.opts.Ask
	opts.Origin, opts.ParentRun, opts.ParentStep = origin, r.id, step
	opts.Replace = replace
	res, err := Apply(ctx, prog, opts)
	switch {
	case err != nil:
		return nil, err
	case ctx.Err() != nil:
		return res, ctx.Err()
	case res.Status == StatusOK:
		return res, nil
	}
	msg := fmt.Sprintf("flow %s (run %s) %s", prog.Flow.Name, res.RunID, res.Status)
	if res.Status == StatusWaiting {
		msg += " for a decision; approve it, then run this step again"
	}
	if len(res.Diagnostics) > 0 {
		msg += ": " + lang.ErrorSentence(res.Diagnostics, false)
	}
	return res, errors.New(msg)
}

// childOptions are the options of a run (or plan) of prog that this run
// starts: the inputs, the secrets prog declares, and this run's
// environment, namespace, cache settings, store, executors and whether
// it is offline.
func (r *run) childOptions(prog *compiler.Program, inputs map[string]cty.Value) Options {
	return Options{
		Inputs: inputs, Secrets: r.secretsFor(prog), LookupEnv: r.opts.LookupEnv, Namespace: r.opts.Namespace,
		NoCache: r.opts.NoCache, CacheAll: r.opts.CacheAll, CacheTag: r.opts.CacheTag, Store: r.opts.Store, Executors: r.opts.Executors,
		Offline: r.opts.Offline, Ledger: r.ledger, NoRecordPrompts: r.opts.NoRecordPrompts,
	}
}

// childReplacer is the Replacer of the run of a flow that step s starts
// (tool: as a tool of its model), nil when this run replaces nothing.
func (r *run) childReplacer(s *compiler.Step, tool string) Replacer {
	if r.opts.Replace == nil {
		return nil
	}
	return r.opts.Replace.Flow(s, tool)
}

// secretsFor are the secrets given to this run that prog or a flow it
// uses declares: a flow a run starts gets only those (it passes on to
// the flows it uses theirs); the others it reads from the environment,
// as any run does.
func (r *run) secretsFor(prog *compiler.Program) map[string]string {
	var secrets map[string]string
	known := prog.SecretNames()
	for name, v := range r.opts.Secrets {
		if known[name] {
			if secrets == nil {
				secrets = map[string]string{}
			}
			secrets[name] = v
		}
	}
	return secrets
}
