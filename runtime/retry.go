package runtime

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
)

// errShape is wrapped by the error of a result of the wrong shape, which
// retrying does not change.
var errShape = errors.New("wrong shape")

type shapeError struct{ err error }

func (e shapeError) Error() string { return e.err.Error() }

func (e shapeError) Unwrap() []error { return []error{e.err, errShape} }

// tries are how a block is called: how many attempts, the backoff between
// them, and each attempt's timeout.
type tries struct {
	attempts            int
	backoff, maxBackoff time.Duration
	timeout             time.Duration // 0: none
}

// triesOf is how a step's block is called: its retry block, and its
// timeout (StepTimeout).
func triesOf(s *compiler.Step) tries { return retrying(s.Retry, StepTimeout(s)) }

// StepTimeout is the timeout of each attempt of a step: its own, else its
// block's, else the default of code blocks; 0 for none.
func StepTimeout(s *compiler.Step) time.Duration {
	if s.Timeout != nil {
		return s.Timeout.Duration
	}
	return blockTimeout(s.Block)
}

// retrying is how a retry block (nil: none) calls a block.
func retrying(retry *lang.Retry, timeout time.Duration) tries {
	t := tries{attempts: 1, backoff: lang.DefaultBackoff, maxBackoff: lang.DefaultMaxBackoff, timeout: timeout}
	if retry != nil {
		t.attempts, t.backoff, t.maxBackoff = retry.Attempts, retry.Backoff.Duration, retry.MaxBackoff.Duration
	}
	return t
}

// blockTimeout is a block's own timeout: its definition's, else for code
// blocks DefaultCodeTimeout.
func blockTimeout(b *blocks.Block) time.Duration {
	switch {
	case b.Def != nil && b.Def.Timeout != nil:
		return b.Def.Timeout.Duration
	case b.Runtime == lang.RuntimeGo || b.Runtime == lang.RuntimeJS || b.Runtime == lang.RuntimePython:
		return DefaultCodeTimeout
	}
	return 0
}

// run calls exec until an attempt succeeds, a failure is final, or the
// attempts are used; each is told to each (when set), which returns the
// attempt's context and a function told how it ended. It returns the
// result, the attempts made and the tokens they used; errCancelled when
// ctx ended.
func (t tries) run(ctx context.Context, exec blocks.Executor, call *blocks.Call,
	each func(context.Context, int) (context.Context, func(*blocks.Result, error))) (*blocks.Result, int, *blocks.Usage, error) {
	// An executor that waits for capacity (the sandbox's workers) starts
	// the timeout itself when the block starts: waiting is not the step's
	// time.
	_, queued := exec.(blocks.Queued)
	if queued {
		call.Timeout = t.timeout
	}
	var usage *blocks.Usage
	backoff := t.backoff
	for n := 1; ; n++ {
		if n > 1 {
			// After the backoff: may it still start? (blocks.Proceed)
			if err := blocks.Proceed(ctx); err != nil {
				if ctx.Err() != nil {
					return nil, n - 1, usage, errCancelled
				}
				return nil, n - 1, usage, err
			}
		}
		sctx, ended := ctx, endNothing
		if each != nil {
			sctx, ended = each(ctx, n)
		}
		actx, cancel := sctx, context.CancelFunc(func() {})
		if t.timeout > 0 && !queued {
			actx, cancel = context.WithTimeout(sctx, t.timeout)
		}
		call.Attempt = n
		res, err := exec.Execute(actx, call)
		ended(res, err)
		deadline := actx.Err() == context.DeadlineExceeded ||
			(queued && t.timeout > 0 && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded))
		cancel()
		if res != nil && res.Usage != nil {
			usage = addUsage(usage, res.Usage)
		}
		if err == nil {
			return res, n, usage, nil
		}
		switch {
		case ctx.Err() != nil:
			return nil, n, usage, errCancelled
		case deadline:
			err = fmt.Errorf("exceeded its %s timeout", t.timeout)
		}
		if n >= t.attempts || errors.Is(err, blocks.ErrFinal) {
			if t.attempts > 1 {
				err = fmt.Errorf("%w (after %d attempts)", err, t.attempts)
			}
			return nil, n, usage, err
		}
		timer := time.NewTimer(backoff)
		select {
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
			return nil, n, usage, errCancelled
		}
		backoff = min(backoff*2, t.maxBackoff)
	}
}

func addUsage(a, b *blocks.Usage) *blocks.Usage {
	if a == nil {
		c := *b
		return &c
	}
	c := *a
	c.Add(*b)
	return &c
}
