// Package contextcheck holds the functions of package context that derive
// a Context, as go blocks get them: each accepts only the context
// package's own Contexts as the parent (the ctx Execute is given,
// Background, TODO and what derives from them), and panics with
// ErrForeignParent at another.
//
// The context package starts a goroutine to watch a parent Context it does
// not know, and calls the parent's methods on it. With a Context type of
// the block's own, a compiled block could start goroutines without a go
// statement, and an interpreted one would run its code on a goroutine
// where a panic ends the process.
//
// Both engines of go blocks use these functions: the interpreter gets them
// as package context's symbols (package gorun), and the compiled engine
// copies this package into the program, like the wrappers beside it, and
// makes the block's calls of the context functions calls of these
// (package gobuild). A panic is reported as the block's error at its line.
package contextcheck

import (
	"context"
	"reflect"
	"time"
)

// ErrForeignParent is what deriving from a Context of the block's own
// panics with.
const ErrForeignParent = "a go block's contexts must derive from the ctx Execute is given (or context.Background()), not from a Context type of its own"

func checkParent(p context.Context) {
	if p == nil {
		return // the context package panics with its own message
	}
	t := reflect.TypeOf(p)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.PkgPath() != "context" {
		panic(ErrForeignParent)
	}
}

// WithCancel is context.WithCancel for a parent of package context.
func WithCancel(p context.Context) (context.Context, context.CancelFunc) {
	checkParent(p)
	return context.WithCancel(p)
}

// WithCancelCause is context.WithCancelCause for a parent of package context.
func WithCancelCause(p context.Context) (context.Context, context.CancelCauseFunc) {
	checkParent(p)
	return context.WithCancelCause(p)
}

// WithDeadline is context.WithDeadline for a parent of package context.
func WithDeadline(p context.Context, d time.Time) (context.Context, context.CancelFunc) {
	checkParent(p)
	return context.WithDeadline(p, d)
}

// WithDeadlineCause is context.WithDeadlineCause for a parent of package context.
func WithDeadlineCause(p context.Context, d time.Time, cause error) (context.Context, context.CancelFunc) {
	checkParent(p)
	return context.WithDeadlineCause(p, d, cause)
}

// WithTimeout is context.WithTimeout for a parent of package context.
func WithTimeout(p context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	checkParent(p)
	return context.WithTimeout(p, d)
}

// WithTimeoutCause is context.WithTimeoutCause for a parent of package context.
func WithTimeoutCause(p context.Context, d time.Duration, cause error) (context.Context, context.CancelFunc) {
	checkParent(p)
	return context.WithTimeoutCause(p, d, cause)
}

// WithValue is context.WithValue for a parent of package context.
func WithValue(p context.Context, key, val any) context.Context {
	checkParent(p)
	return context.WithValue(p, key, val)
}

// WithoutCancel is context.WithoutCancel for a parent of package context.
func WithoutCancel(p context.Context) context.Context {
	checkParent(p)
	return context.WithoutCancel(p)
}
