package contextcheck

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestContextFuncs: a Context type of the block's own is refused; the
// context package's own are not.
func TestContextFuncs(t *testing.T) {
	ctx, cancel := WithCancel(context.Background())
	defer cancel()
	ctx, cancel = WithTimeout(WithValue(WithoutCancel(ctx), "k", 1), time.Minute)
	defer cancel()
	if ctx.Value("k") != 1 {
		t.Error("WithValue lost its value")
	}
	c1, cancel1 := WithCancelCause(ctx)
	c2, cancel2 := WithDeadline(c1, time.Now().Add(time.Minute))
	c3, cancel3 := WithDeadlineCause(c2, time.Now().Add(time.Minute), errors.New("late"))
	_, cancel4 := WithTimeoutCause(c3, time.Minute, errors.New("late"))
	cancel4()
	cancel3()
	cancel2()
	cancel1(nil)
	defer func() {
		if r := recover(); r != ErrForeignParent {
			t.Errorf("recovered %v", r)
		}
	}()
	WithCancel(own{ctx})
}

type own struct{ context.Context }
