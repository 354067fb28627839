package blocks

import (
	"context"
	"errors"
	"fmt"
)

// Limit returns an executor that runs at most n calls of exec at once;
// the others wait for a place, in the order they came. It bounds work
// that is limited by processors (code run in flowctl's own process), so
// that a for_each of thousands of code steps does not start thousands of
// interpreters. It is Bounded, and Queued: a call's Timeout starts when the call has
// its place, so the wait is not the step's time.
func Limit(exec Executor, n int) Queued {
	return &limited{exec: exec, slots: make(chan struct{}, max(n, 1))}
}

// Bounded is an executor that runs at most Width(b) calls of block b at
// once (0: no bound): a caller with more calls to make gains nothing by
// making more than that at once.
type Bounded interface {
	Width(b *Block) int
}

type limited struct {
	exec  Executor
	slots chan struct{}
}

func (*limited) Queued() {}

func (l *limited) Width(*Block) int { return cap(l.slots) }

func (l *limited) Execute(ctx context.Context, call *Call) (*Result, error) {
	select {
	case l.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-l.slots }()
	if err := Proceed(ctx); err != nil {
		return nil, err
	}
	return ExecuteWithin(ctx, call, l.exec)
}

// ExecuteWithin runs a call with exec, applying the call's Timeout, as a
// Queued executor does once the call may start. A block stopped by the
// timeout or by cancellation returns an error that wraps the context's.
func ExecuteWithin(ctx context.Context, call *Call, exec Executor) (*Result, error) {
	if call.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, call.Timeout)
		defer cancel()
	}
	res, err := exec.Execute(ctx, call)
	if err != nil && ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
		name := ""
		if call.Block != nil {
			name = call.Block.Name
		}
		return res, Stopped(name, ctx.Err())
	}
	return res, err
}

// Stopped is the error of a block stopped by its context: its timeout
// (wrapping context.DeadlineExceeded) or the run's cancellation.
func Stopped(block string, err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("block %q exceeded its timeout: %w", block, err)
	}
	return fmt.Errorf("block %q was cancelled: %w", block, err)
}
