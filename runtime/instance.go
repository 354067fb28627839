package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// runInstance runs one instance of a step: its when condition, its inputs,
// a cache lookup, then the block with timeouts and retries.
func (r *run) runInstance(ctx context.Context, s *compiler.Step, inst instance) instanceResult {
	if r.prior != nil {
		if res, ok := r.kept(s, inst); ok {
			return res
		}
	}
	if r.sem != nil {
		select {
		case r.sem <- struct{}{}:
			defer func() { <-r.sem }()
		case <-ctx.Done():
		}
	}
	if ctx.Err() != nil {
		return r.endInstance(s, inst, time.Now(), ending{status: StatusCancelled, value: nullOutputs(s), err: "the run was cancelled"})
	}
	start := time.Now()
	fail := func(diags hcl.Diagnostics) instanceResult {
		r.addStepDiags(s, diags)
		return r.endInstance(s, inst, start, ending{status: StatusFailed, value: nullOutputs(s), err: DiagText(diags)})
	}

	if s.When != nil {
		v, ctx, diags := r.scope.Eval(s.When, inst.each)
		diags = r.explainAny(s.When, ctx, hideSensitive(s.When, ctx, diags))
		if !diags.HasErrors() {
			v, _ = v.UnmarkDeep()
			if v, err := convert.Convert(v, cty.Bool); err != nil || v.IsNull() || !v.IsKnown() {
				diags = lang.Error(s.When.Range(), "Invalid when condition",
					"The when condition of step %q must be true or false.", s.Name)
			} else if v.False() {
				return r.endInstance(s, inst, start, ending{status: StatusSkipped, value: nullOutputs(s), err: "when is false"})
			}
		}
		if diags.HasErrors() {
			return fail(diags)
		}
	}

	inputs, marked, _, diags := r.evalInputs(s, inst, false)
	if diags.HasErrors() {
		return fail(diags)
	}
	sensitive := sensitiveResult(s, marked)
	if isApproval(s) && (r.opts.Replace == nil || r.opts.Replace.Executor(s) == nil) {
		return r.runApproval(ctx, s, inst, inputs, start)
	}
	call := &blocks.Call{
		Block: s.Block, Inputs: inputs, Outputs: s.Outputs, Dir: r.prog.Dir, Touch: r.opts.OnFileRead,
		Step: Label(s.Name, inst.key), Redact: r.redact.redact, Sensitive: marked, Ledger: r.ledger,
		Trace: r.traceFor(s, inst),
	}
	var err error
	if call.Provider, err = r.provider(s); err != nil {
		return fail(r.stepError(s, inst, err))
	}
	if call.Collection, err = r.collection(ctx, s); err != nil {
		return fail(r.stepError(s, inst, err))
	}
	var log *instanceLog
	if !s.Block.Builtin() || len(s.Tools) > 0 {
		log = r.newInstanceLog(s.Name, inst.key)
		call.Log = log.line
	}
	exec, err := r.executorFor(s)
	if err != nil {
		return fail(r.stepError(s, inst, err))
	}

	// Results derived from a secret are never stored, so they are never
	// cached either.
	cacheable := !sensitive && (r.opts.CacheAll || s.CacheEnabled())
	var key string
	if cacheable {
		if key, err = r.cacheKey(s, call, exec); err != nil {
			// The key needs what the block reads (a file that is not
			// there): run uncached, and let the block report it, with
			// its retries.
			cacheable, key = false, ""
		}
	}
	if cacheable && r.opts.Store != nil {
		call.Cache = &partCache{store: r.opts.Store, flow: r.prog.Flow.Name, step: call.Step, read: !r.opts.NoCache}
	}
	if r.prior != nil {
		// The change since the run started reached the step, but this
		// instance's block and input values are the ones it recorded.
		if rec := r.sameRecord(s, inst, key); rec != nil {
			if res, ok := r.keep(s, inst, rec); ok {
				return res
			}
		}
	}
	if msg := r.waitState(ctx); msg != "" {
		return r.endInstance(s, inst, start, ending{status: StatusFailed, value: nullOutputs(s), err: msg})
	}
	ctx = r.gate(ctx)
	if cacheable {
		if !r.opts.NoCache && r.opts.Store != nil && r.mayBeCached(s, key) {
			v, raw, ok, err := r.cached(key)
			if err != nil {
				return fail(r.stepError(s, inst, err))
			}
			if ok {
				if _, span := startStepSpan(ctx, s, inst, trace.WithTimestamp(start)); span != nil {
					span.SetAttributes(attribute.Bool("flowctl.cache_hit", true), attribute.String("flowctl.status", string(StatusCached)))
					span.End()
				}
				return r.endInstance(s, inst, start, ending{status: StatusCached, value: v, raw: raw, key: key})
			}
		}
	}

	if call.Tools, err = r.stepTools(ctx, s, inst, call.Log); err != nil {
		return fail(r.stepError(s, inst, err))
	}
	var nc notices
	value, attempts, usage, err := r.attempt(ctx, s, inst, exec, call, &nc)
	switch {
	case err == nil && sensitive:
		// Never stored, so not encoded.
		return r.endInstance(s, inst, start, ending{status: StatusOK, value: value.Mark(lang.Sensitive), attempts: attempts, usage: usage, log: log.text(), notices: &nc})
	case err == nil:
		var raw json.RawMessage
		if raw, err = storable(value, MaxStoredOutputs); err == nil {
			if !cacheable {
				key = ""
			}
			return r.endInstance(s, inst, start, ending{status: StatusOK, value: value, raw: raw, key: key, attempts: attempts, usage: usage, log: log.text(), notices: &nc})
		}
	case errors.Is(err, errCancelled):
		return r.endInstance(s, inst, start, ending{status: StatusCancelled, value: nullOutputs(s), err: "cancelled", attempts: attempts, usage: usage, log: log.text(), notices: &nc})
	}
	r.addStepDiags(s, r.stepError(s, inst, err))
	res := r.endInstance(s, inst, start, ending{status: StatusFailed, value: nullOutputs(s), err: err.Error(), attempts: attempts, usage: usage, log: log.text(), notices: &nc})
	res.retry = !errors.Is(err, blocks.ErrFinal) && !errors.Is(err, errShape)
	return res
}

// endNothing ends an attempt that has no span.
func endNothing(*blocks.Result, error) {}

// attempt calls the block, retrying failures as the step's retry block says.
func (r *run) attempt(ctx context.Context, s *compiler.Step, inst instance, exec blocks.Executor, call *blocks.Call, nc *notices) (cty.Value, int, *blocks.Usage, error) {
	ctx = blocks.WithNotices(ctx, func(n blocks.Notice) {
		nc.add(n)
		emit(r, StepNotice{Time: time.Now(), Step: s.Name, Instance: inst.key, Kind: n.Kind, Message: r.redact.redact(n.Message), Wait: n.Wait})
	})
	t, first := triesOf(s), 0
	if r.opts.attempt > 0 {
		t.attempts, first = 1, r.opts.attempt-1
	}
	d := &deltas{r: r, step: s.Name, key: inst.key}
	res, n, usage, err := t.run(ctx, exec, call, func(ctx context.Context, n int) (context.Context, func(*blocks.Result, error)) {
		n += first
		call.Delta = d.relay(n)
		emit(r, StepStarted{Time: time.Now(), Step: s.Name, Instance: inst.key, Attempt: n})
		if !trace.SpanFromContext(ctx).IsRecording() {
			return ctx, endNothing
		}
		sctx, span := startStepSpan(ctx, s, inst, trace.WithAttributes(attribute.Int("flowctl.attempt", n)))
		return sctx, func(res *blocks.Result, err error) { endStepSpan(span, res, err) }
	})
	n += first
	d.flush()
	if err != nil {
		return cty.NilVal, n, usage, err
	}
	v, err := convertOutputs(s.Block, s.Outputs, call, res)
	if err != nil {
		err = shapeError{err} // a result of the wrong shape is not retried
	}
	return v, n, usage, err
}

// evalInputs evaluates a step's arguments for one instance and converts
// each to its input's type; inputs not given take their defaults. It also
// names the inputs whose values are sensitive, and, when planning, says
// whether any value is not known yet.
func (r *run) evalInputs(s *compiler.Step, inst instance, planning bool) (map[string]cty.Value, map[string]bool, bool, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	var marked map[string]bool
	unknown := false
	out := make(map[string]cty.Value, len(s.Block.Inputs))
	for _, in := range s.Block.Inputs {
		attr := s.Arg(in.Name)
		if attr == nil {
			out[in.Name] = in.Default
			continue
		}
		v, ctx, d := r.scope.Eval(attr.Expr, inst.each)
		if d.HasErrors() {
			diags = append(diags, r.explainAny(attr.Expr, ctx, hideSensitive(attr.Expr, ctx, d))...)
			continue
		}
		bad := func(summary, detail string) {
			diags = append(diags, r.badInput(s, inst, in, attr.Expr, ctx, summary, detail))
		}
		// A value Eval took from each alone (it needed no context) of a
		// for_each found known and not sensitive (item = each.value) has
		// nothing inside to look for.
		if plain := ctx == nil && inst.each != nil && inst.each.Plain; !plain {
			if lang.IsSensitive(v) {
				r.redact.addValue(v)
				if marked == nil {
					marked = map[string]bool{}
				}
				marked[in.Name] = true
			}
			if lang.ContainsMarked(v) {
				v, _ = v.UnmarkDeep()
			}
			if !lang.IsWhollyKnown(v) {
				if planning {
					unknown = true
				} else {
					bad("Unknown input value", "the value is not known; a step it depends on produced no value")
				}
				continue
			}
		}
		cv, summary, detail := convertInput(s.Block, in, v)
		if summary != "" {
			bad(summary, detail)
			continue
		}
		out[in.Name] = cv
	}
	return out, marked, unknown, diags
}

// badInput is the diagnostic of a step instance's input whose value is
// wrong; ctx is what its expression was evaluated in, nil when that
// needed none (it is built then).
func (r *run) badInput(s *compiler.Step, inst instance, in *lang.Field, expr hcl.Expression, ctx *hcl.EvalContext, summary, detail string) *hcl.Diagnostic {
	if ctx == nil {
		ctx = r.scope.EvalContext(expr, inst.each)
	}
	return &hcl.Diagnostic{
		Severity: hcl.DiagError, Summary: summary,
		Detail:  fmt.Sprintf("Step %s, input %q of block %q: %s.", Label(s.Name, inst.key), in.Name, s.Block.Name, detail),
		Subject: expr.Range().Ptr(), Expression: expr, EvalContext: ctx,
	}
}

// convertInput converts a known value for an input of block b to the
// input's type, its defaults applied, and checks it; on a problem it
// returns its summary and what is wrong.
func convertInput(b *blocks.Block, in *lang.Field, v cty.Value) (cty.Value, string, string) {
	if in.Type.Defaults != nil && !v.IsNull() {
		v = in.Type.Defaults.Apply(v)
	}
	cv, err := lang.Convert(v, in.Type.Type)
	switch {
	case err != nil:
		return cty.NilVal, "Invalid input value", "must be " + lang.FriendlyTypeName(in.Type.Type) + ": " + lang.FormatConvertError(err)
	case cv.IsNull() && in.Required():
		return cty.NilVal, "Null value for required input", "the input is required and may not be null"
	}
	if err := b.CheckInput(in.Name, cv); err != nil {
		return cty.NilVal, "Invalid value for input", err.Error()
	}
	return cv, "", ""
}

// sensitiveResult says whether a step's result is sensitive, given the
// inputs whose values are: when its block passes one of them on
// (compiler.Step.PassesSensitive), or when it is a flow with a sensitive
// output.
func sensitiveResult(s *compiler.Step, marked map[string]bool) bool {
	for name := range marked {
		if s.PassesSensitive(name) {
			return true
		}
	}
	return s.Flow != nil && s.Flow.SensitiveOutputs()
}

// convertOutputs converts what block b returned to the output types,
// naming the path of any mismatch.
func convertOutputs(b *blocks.Block, outputs []*lang.Field, call *blocks.Call, res *blocks.Result) (cty.Value, error) {
	attrs := lang.NewAttrs()
	for _, f := range outputs {
		v, ok := res.Outputs[f.Name]
		if !ok || v == cty.NilVal {
			if f.Name == "usage" && res.Usage != nil {
				v = cty.ObjectVal(map[string]cty.Value{
					"prompt_tokens":     cty.NumberIntVal(int64(res.Usage.PromptTokens)),
					"completion_tokens": cty.NumberIntVal(int64(res.Usage.CompletionTokens)),
					"total_tokens":      cty.NumberIntVal(int64(res.Usage.TotalTokens)),
				})
			} else {
				return cty.NilVal, fmt.Errorf("block %q returned no output %q", b.Name, f.Name)
			}
		}
		if in, ok := b.OutputTypeFrom[f.Name]; ok {
			// The output has the type of the value given to the input
			// (the compiler typed the step so); what the block returned,
			// or a test's override of the step, is converted to it.
			iv := call.Inputs[in]
			if iv == cty.NilVal || v.Type().Equals(iv.Type()) {
				attrs[f.Name] = v
				continue
			}
			cv, err := lang.Convert(v, iv.Type())
			if err != nil {
				return cty.NilVal, fmt.Errorf("output %q of block %q must be %s, as input %q is: %s",
					f.Name, b.Name, lang.FriendlyTypeName(iv.Type()), in, lang.FormatConvertError(err))
			}
			attrs[f.Name] = cv
			continue
		}
		cv, err := lang.Convert(v, f.Type.Type)
		if err != nil {
			return cty.NilVal, fmt.Errorf("output %q of block %q must be %s: %s",
				f.Name, b.Name, lang.FriendlyTypeName(f.Type.Type), lang.FormatConvertError(err))
		}
		if err := b.CheckNull(f, cv); err != nil {
			return cty.NilVal, err
		}
		attrs[f.Name] = cv
	}
	return lang.ObjectOf(attrs), nil
}

// stepError turns a step's failure into a diagnostic at the step.
func (r *run) stepError(s *compiler.Step, inst instance, err error) hcl.Diagnostics {
	return hcl.Diagnostics{{
		Severity: hcl.DiagError,
		Summary:  "Step failed",
		Detail:   fmt.Sprintf("Step %s (block %q) failed: %s.", Label(s.Name, inst.key), s.Block.Name, r.redact.redact(trimDot(err.Error()))),
		Subject:  s.DeclRange.Ptr(),
		Extra:    StepDiag{Step: Label(s.Name, inst.key)},
	}}
}

func trimDot(s string) string {
	for len(s) > 0 && s[len(s)-1] == '.' {
		s = s[:len(s)-1]
	}
	return s
}

// hideSensitive replaces the details of errors in an expression that uses a
// sensitive value: a function's error quotes the value it was given (and
// upper(secret) or base64encode(secret) is no longer the secret's text, so
// the redactor would not find it).
// sensitiveDetail is the detail of an error hideSensitive hid.
const sensitiveDetail = "The expression uses a sensitive value, so the details of this error are not shown."

func hideSensitive(expr hcl.Expression, ctx *hcl.EvalContext, diags hcl.Diagnostics) hcl.Diagnostics {
	if ctx == nil || !diags.HasErrors() {
		return diags
	}
	sensitive := false
	for _, tr := range expr.Variables() {
		if v, d := tr.TraverseAbs(ctx); !d.HasErrors() && lang.IsSensitive(v) {
			sensitive = true
			break
		}
		if root, ok := ctx.Variables[tr.RootName()]; ok && lang.IsSensitive(root) {
			sensitive = true
			break
		}
	}
	if !sensitive {
		return diags
	}
	out := make(hcl.Diagnostics, len(diags))
	for i, d := range diags {
		c := *d
		c.Detail = sensitiveDetail
		c.Expression, c.EvalContext = nil, nil
		out[i] = &c
	}
	return out
}

// startStepSpan starts the span of a step instance's attempt (or cache
// hit) under the run's span; when the run's span does not record (traces
// are off) it starts none and returns ctx and nil, so that a step costs
// nothing more.
func startStepSpan(ctx context.Context, s *compiler.Step, inst instance, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	if !trace.SpanFromContext(ctx).IsRecording() {
		return ctx, nil
	}
	opts = append(opts, trace.WithAttributes(attribute.String("flowctl.step", s.Name),
		attribute.String("flowctl.instance", inst.key.String()), attribute.String("flowctl.block", s.Block.Name)))
	return tracer().Start(ctx, "step "+Label(s.Name, inst.key), opts...)
}

// endStepSpan ends the span of an attempt with its status and token usage.
func endStepSpan(span trace.Span, res *blocks.Result, err error) {
	if span == nil {
		return
	}
	if res != nil && res.Usage != nil {
		span.SetAttributes(attribute.Int("flowctl.tokens.prompt", res.Usage.PromptTokens),
			attribute.Int("flowctl.tokens.completion", res.Usage.CompletionTokens))
	}
	if err != nil {
		span.SetAttributes(attribute.String("flowctl.status", string(StatusFailed)))
		span.SetStatus(codes.Error, "the attempt failed")
	} else {
		span.SetAttributes(attribute.String("flowctl.status", string(StatusOK)))
	}
	span.End()
}

// notices counts the retries an instance's block reported while it ran
// (blocks.Notice), and how long it waited before them.
type notices struct {
	mu      sync.Mutex
	retries int
	waited  time.Duration
}

func (nc *notices) add(n blocks.Notice) {
	if n.Kind != blocks.NoticeRetry {
		return
	}
	nc.mu.Lock()
	nc.retries++
	nc.waited += n.Wait
	nc.mu.Unlock()
}

// counts are the retries and the time waited before them.
func (nc *notices) counts() (int, time.Duration) {
	if nc == nil {
		return 0, 0
	}
	nc.mu.Lock()
	defer nc.mu.Unlock()
	return nc.retries, nc.waited
}
