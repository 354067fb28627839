package runtime

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// A flow's per-key limits (concurrency, rate_limit, debounce) hold its
// runs back until their keys let them start (state.StartLimited). Every
// start of flowctl serve goes through them (its queue, server/limits.go);
// a run that Apply starts by itself (apply, an MCP call) waits for its
// turn here (waitTurn), held by concurrency and rate limits; debounce,
// which makes many starts one run, is serve's alone, as these callers
// wait for their own run's outputs. A sub-flow's run is part of its
// parent's, not a start: no limit holds it back.

// LimitPoll is how often a run held back by a limit looks again whether
// its turn came: a place freed by another process is seen this late.
const LimitPoll = 200 * time.Millisecond

// RunLimits are the limits a start of prog with inputs (resolved) goes
// through, with its priority: nil when the flow declares none.
func RunLimits(prog *compiler.Program, inputs map[string]cty.Value, priority int) (*state.RunLimits, hcl.Diagnostics) {
	if prog.Limits.Empty() {
		return nil, nil
	}
	keys, diags := prog.LimitKeys(inputs)
	if diags.HasErrors() {
		return nil, diags
	}
	l := &state.RunLimits{Concurrency: keys.Concurrency, Rate: keys.Rate, Debounce: keys.Debounce, Priority: priority}
	if c := prog.Limits.Concurrency; c != nil {
		l.ConcurrencyLimit = c.Limit
	}
	if r := prog.Limits.RateLimit; r != nil {
		l.RateLimit, l.RatePeriod = r.Limit, r.Period
	}
	if d := prog.Limits.Debounce; d != nil {
		l.DebouncePeriod = d.Period
	}
	return l, nil
}

// TurnInputs are the inputs of a limited run whose turn came, as
// recorded: a debounced run's are its key's last start's.
func TurnInputs(prog *compiler.Program, id string, turn state.Turn) (map[string]cty.Value, hcl.Diagnostics) {
	return ResumeInputs(prog, &state.Run{ID: id, Inputs: turn.Inputs}, nil)
}

// NextLook is when a run that waits for its turn (turn) looks again: at
// the end of a period it waits for, or after LimitPoll.
func NextLook(turn state.Turn, now time.Time) time.Duration {
	if !turn.Until.IsZero() && turn.Until.Sub(now) < LimitPoll {
		return max(turn.Until.Sub(now), time.Millisecond)
	}
	return LimitPoll
}

// waitTurn is Apply's start of a run of a flow with concurrency or rate
// limits: the run is recorded queued with its keys and started when they
// let it; opts then say it is recorded running. A run whose ctx ends
// while it waits is recorded cancelled. The Result, when not nil, is of a
// run that cannot start (its inputs give no key).
func waitTurn(ctx context.Context, prog *compiler.Program, opts Options) (Options, *Result, error) {
	if opts.Store == nil || opts.Resume || opts.Queued || opts.Recorded || opts.ParentRun != "" ||
		prog.Limits.Concurrency == nil && prog.Limits.RateLimit == nil {
		return opts, nil, nil
	}
	l, diags := RunLimits(prog, opts.Inputs, 0)
	if diags.HasErrors() {
		return opts, &Result{Status: StatusFailed, Diagnostics: diags}, nil
	}
	l.Debounce = nil // serve's alone
	if opts.RunID == "" {
		opts.RunID = state.NewRunID()
	}
	rec := QueuedRun(prog, opts)
	rec.Limits = l
	if _, err := opts.Store.QueueRun(rec, nil, time.Time{}); err != nil {
		return opts, nil, err
	}
	for {
		turn, err := opts.Store.StartLimited(opts.RunID, l, "")
		if err != nil {
			return opts, nil, err
		}
		if turn.Started {
			opts.Recorded = true
			return opts, nil, nil
		}
		select {
		case <-time.After(NextLook(turn, time.Now())):
		case <-ctx.Done():
			if err := opts.Store.EndQueued(opts.RunID, string(StatusCancelled), "cancelled while it waited for its turn ("+turn.WaitingFor+")"); err != nil && !errors.Is(err, state.ErrNotQueued) {
				return opts, nil, err
			}
			return opts, nil, fmt.Errorf("run %s cancelled while it waited for its turn (%s): %w", opts.RunID, turn.WaitingFor, ctx.Err())
		}
	}
}
