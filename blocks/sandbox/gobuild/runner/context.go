package runner

import (
	"context"
	"reflect"
	"time"
)

// The context package starts a goroutine to watch a parent Context it does
// not know, and calls the parent's methods on it: a Context type of the
// block's own could start goroutines without a go statement. The block's
// calls of the functions that derive contexts are made calls of these
// (package gobuild rewrites them), which accept only the context package's
// own Contexts, as the interpreter's do; another parent makes the call
// panic, at its line.

const errForeignParent = "a go block's contexts must derive from the ctx Execute is given (or context.Background()), not from a Context type of its own"

func checkParent(p context.Context) {
	if p == nil {
		return // the context package panics with its own message
	}
	t := reflect.TypeOf(p)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.PkgPath() != "context" {
		panic(errForeignParent)
	}
}

func WithCancel(p context.Context) (context.Context, context.CancelFunc) {
	checkParent(p)
	return context.WithCancel(p)
}

func WithCancelCause(p context.Context) (context.Context, context.CancelCauseFunc) {
	checkParent(p)
	return context.WithCancelCause(p)
}

func WithDeadline(p context.Context, d time.Time) (context.Context, context.CancelFunc) {
	checkParent(p)
	return context.WithDeadline(p, d)
}

func WithDeadlineCause(p context.Context, d time.Time, cause error) (context.Context, context.CancelFunc) {
	checkParent(p)
	return context.WithDeadlineCause(p, d, cause)
}

func WithTimeout(p context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	checkParent(p)
	return context.WithTimeout(p, d)
}

func WithTimeoutCause(p context.Context, d time.Duration, cause error) (context.Context, context.CancelFunc) {
	checkParent(p)
	return context.WithTimeoutCause(p, d, cause)
}

func WithValue(p context.Context, key, val any) context.Context {
	checkParent(p)
	return context.WithValue(p, key, val)
}

func WithoutCancel(p context.Context) context.Context {
	checkParent(p)
	return context.WithoutCancel(p)
}
