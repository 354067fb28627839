package gorun

import "github.com/flowctl/flowctl/blocks/sandbox/gorun/wrap/contextcheck"

// contextFuncs replace the functions of package context that derive a
// Context: they accept only the context package's own Contexts as the
// parent (see package contextcheck, which the compiled engine uses too).
var contextFuncs = map[string]any{
	"WithCancel":        contextcheck.WithCancel,
	"WithCancelCause":   contextcheck.WithCancelCause,
	"WithDeadline":      contextcheck.WithDeadline,
	"WithDeadlineCause": contextcheck.WithDeadlineCause,
	"WithTimeout":       contextcheck.WithTimeout,
	"WithTimeoutCause":  contextcheck.WithTimeoutCause,
	"WithValue":         contextcheck.WithValue,
	"WithoutCancel":     contextcheck.WithoutCancel,
}
