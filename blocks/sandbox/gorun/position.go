package gorun

import (
	"github.com/flowctl/flowctl/blocks/sandbox"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
)

// Error is the error of every problem of a go block's code or call.
type Error = sandbox.Error

// sourceRange is where to report a problem at line and col of a block's
// code (col 0: the whole line); line 0, unknown, is the code's first line.
func sourceRange(def *lang.BlockDef, line, col int) hcl.Range {
	return sandbox.Range(def, max(line, 1), col, 0)
}

// place renders where a line of a block's code is: "flow.hcl:12".
func place(def *lang.BlockDef, line int) string { return sandbox.Place(def, line) }

// newError is the error of a block whose message goes on with what: "block
// "x" what".
func newError(def *lang.BlockDef, line int, what string, rng hcl.Range, cause error) *Error {
	return &Error{Block: def.Name, Line: sandbox.FileLine(def, line), Text: " " + what, Range: rng, Err: cause}
}
