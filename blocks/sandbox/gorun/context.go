package gorun

import (
	"context"
	"reflect"
	"time"
)

// The context package starts a goroutine to watch a parent Context it does
// not know, and calls the parent's methods on it: with a Context type of
// the block's own, that would run interpreted code on a goroutine of its
// own, where a panic ends the process. The functions that derive contexts
// are replaced by ones that accept only the context package's own
// Contexts (the ctx Execute is given, Background, TODO, and what derives
// from them); another parent makes the call panic, which the block's call
// reports as an error at its line.
var contextFuncs = map[string]any{
	"WithCancel": func(p context.Context) (context.Context, context.CancelFunc) {
		checkParent(p)
		return context.WithCancel(p)
	},
	"WithCancelCause": func(p context.Context) (context.Context, context.CancelCauseFunc) {
		checkParent(p)
		return context.WithCancelCause(p)
	},
	"WithDeadline": func(p context.Context, d time.Time) (context.Context, context.CancelFunc) {
		checkParent(p)
		return context.WithDeadline(p, d)
	},
	"WithDeadlineCause": func(p context.Context, d time.Time, cause error) (context.Context, context.CancelFunc) {
		checkParent(p)
		return context.WithDeadlineCause(p, d, cause)
	},
	"WithTimeout": func(p context.Context, d time.Duration) (context.Context, context.CancelFunc) {
		checkParent(p)
		return context.WithTimeout(p, d)
	},
	"WithTimeoutCause": func(p context.Context, d time.Duration, cause error) (context.Context, context.CancelFunc) {
		checkParent(p)
		return context.WithTimeoutCause(p, d, cause)
	},
	"WithValue": func(p context.Context, key, val any) context.Context {
		checkParent(p)
		return context.WithValue(p, key, val)
	},
	"WithoutCancel": func(p context.Context) context.Context {
		checkParent(p)
		return context.WithoutCancel(p)
	},
}

// errForeignParent is what deriving from a Context of the block's own
// panics with.
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
