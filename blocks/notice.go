package blocks

import (
	"context"
	"time"
)

// A Notice is something a block says about a call while it runs, for the
// people who watch the run: that it waits before trying a request again
// (the server answered 429), or that it builds a compiled block's program
// before the call can start. The runtime turns each into an event.
type Notice struct {
	Kind    NoticeKind
	Message string
	// Wait is how long the call waits before its next try (NoticeRetry).
	Wait time.Duration
}

// NoticeKind says what a Notice is about.
type NoticeKind string

// The kinds of notices.
const (
	NoticeRetry NoticeKind = "retry"
	NoticeBuild NoticeKind = "build"
	// NoticePrice: a model without a price, whose calls have no cost
	// (said once a run).
	NoticePrice NoticeKind = "price"
)

type noticeKey struct{}

// WithNotices returns a context whose calls tell f their notices.
func WithNotices(ctx context.Context, f func(Notice)) context.Context {
	return context.WithValue(ctx, noticeKey{}, f)
}

// Notify tells the watcher of ctx (WithNotices) a notice; nothing when
// nobody watches.
func Notify(ctx context.Context, n Notice) {
	if f, ok := ctx.Value(noticeKey{}).(func(Notice)); ok && f != nil {
		f(n)
	}
}

// A gate says whether a call may still start what it does outside the
// process (WithGate): nil, or why not.
type gate func(context.Context) error

type gateKey struct{}

// WithGate returns a context whose calls ask f, through Proceed, whether
// they may still make their side effects: the runtime's f checks that the
// process still owns the run and can record what the call does.
func WithGate(ctx context.Context, f func(context.Context) error) context.Context {
	return context.WithValue(ctx, gateKey{}, gate(f))
}

// Proceed is called by a block right before it makes a side effect that
// it had to wait for (a request that waited for a connection or a place
// under a limit, a try after a backoff): nil when it may go on, else an
// error (wrapping ErrFinal: trying again cannot help) that the call ends
// with, without making it. Without a gate it returns nil.
func Proceed(ctx context.Context) error {
	f, ok := ctx.Value(gateKey{}).(gate)
	if !ok || f == nil {
		return nil
	}
	if err := f(ctx); err != nil {
		if ctx.Err() != nil {
			return err
		}
		return notStarted{err}
	}
	return nil
}

// notStarted is the error of a call that its gate stopped: final.
type notStarted struct{ err error }

func (e notStarted) Error() string   { return "not started: " + e.err.Error() }
func (e notStarted) Unwrap() []error { return []error{e.err, ErrFinal} }
