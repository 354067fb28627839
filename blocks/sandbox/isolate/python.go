package isolate

import (
	"encoding/json"
	"strings"
	"sync"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/sandbox/pyrun"
	"github.com/flowctl/flowctl/lang"
)

// pythonProgram begins the program of a python block's calls (followed by
// the key of its definition): its workers run CPython with the runner of
// package pyrun, and take only that block's calls.
const pythonProgram = "python:"

// pythonState is what the pool knows of the interpreter, found once.
type pythonState struct {
	once   sync.Once
	worker string   // a pyrun.Worker as JSON, for the workers' command line
	code   []string // its Code, which takes arguments of its own
	err    error
}

// ready finds the interpreter and what its workers may read, once.
func (s *pythonState) ready() error {
	s.once.Do(func() {
		interp, err := pyrun.Find()
		if err != nil {
			s.err = err
			return
		}
		w, err := interp.Worker()
		if err != nil {
			s.err = err
			return
		}
		wire := *w
		wire.Code = nil
		b, err := json.Marshal(&wire)
		s.worker, s.code, s.err = string(b), w.Code, err
	})
	return s.err
}

// confinable fails a python or compiled go block's call on a system where
// its workers cannot be confined, unless the pool runs them unconfined.
func (p *Pool) confinable(def *lang.BlockDef, python bool) error {
	missing := confinable(python)
	if len(missing) == 0 || p.opts.Unconfined {
		return nil
	}
	what := "compiled go blocks"
	if python {
		what = "python blocks"
	}
	return unconfinableError(def.Name, what, missing)
}

// workerLimits adds to a worker's limits what makes it a python block's,
// or one that applies no confinement.
func (p *Pool) workerLimits(l *limits, program string) {
	if strings.HasPrefix(program, pythonProgram) {
		l.python, l.pyCode, l.exec = p.python.worker, p.python.code, ""
		l.noAudit = p.opts.noAudit
	}
	l.noConfine = p.opts.Unconfined && len(confinable(l.python != "")) > 0
}

// pythonResult turns a python worker's reply into the call's result.
func pythonResult(c *pcall, m *message) (*blocks.Result, error) {
	return pyrun.Finish(c.call.Block.Def, pyrun.Reply{
		Outputs: m.Outputs, Error: m.Error, Line: m.Line, Kind: m.Kind, Timeout: m.Timeout,
	}, c.call.Outputs)
}

// pythonDeath says why a python worker stopped, from what the interpreter
// printed and how it ended, or "" when nothing says.
func pythonDeath(stderr, signal string) string {
	switch {
	case strings.Contains(stderr, "MemoryError") || strings.Contains(stderr, "Cannot allocate memory"):
		return "exceeded its memory limit"
	case strings.Contains(stderr, "Cannot recover from stack overflow") || signal == "SIGSEGV" ||
		strings.Contains(stderr, "maximum recursion depth"):
		return "exceeded its stack limit (the recursion is too deep)"
	}
	return ""
}
