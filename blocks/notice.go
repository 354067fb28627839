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
