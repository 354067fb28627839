package jsrun

import (
	"errors"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/dop251/goja"
)

// consoleMethods all write to the call's log. ECMAScript has no console;
// The design gives blocks console.log, and the usual aliases spare users a
// TypeError.
var consoleMethods = []string{"log", "info", "warn", "error", "debug"}

// installConsole defines the console global of a call's runtime. Its
// functions are native functions over the call's sink; no Go object is
// reachable from them.
func installConsole(rt *goja.Runtime, g *goja.Object, sink *logSink, stringify goja.Callable) {
	log := rt.ToValue(func(fc goja.FunctionCall) goja.Value {
		if sink.full() {
			return goja.Undefined()
		}
		parts := make([]string, len(fc.Arguments))
		for i, a := range fc.Arguments {
			parts[i] = logText(a, stringify)
		}
		sink.write(strings.Join(parts, " "))
		return goja.Undefined()
	})
	console := rt.NewObject()
	for _, m := range consoleMethods {
		_ = console.DefineDataProperty(m, log, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE)
	}
	_ = g.DefineDataProperty("console", console, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
}

// logText renders one argument of console.log: strings as they are,
// errors as "Name: message", functions as [Function], other objects as
// JSON, everything else as String(value). It runs inside the runtime:
// exceptions thrown by getters or toJSON reach the caller of console.log.
func logText(v goja.Value, stringify goja.Callable) string {
	switch {
	case v == nil || goja.IsUndefined(v):
		return "undefined"
	case goja.IsNull(v):
		return "null"
	}
	obj, ok := v.(*goja.Object)
	if !ok {
		return v.String()
	}
	if _, ok := goja.AssertFunction(obj); ok {
		return "[Function]"
	}
	if obj.ClassName() == "Error" {
		name, msg := propString(obj, "name"), propString(obj, "message")
		if msg == "" {
			return name
		}
		return name + ": " + msg
	}
	j, err := stringify(goja.Undefined(), obj)
	if err != nil {
		// An interrupt or stack overflow must keep unwinding the call.
		var ie *goja.InterruptedError
		var so *goja.StackOverflowError
		if errors.As(err, &ie) || errors.As(err, &so) {
			panic(err)
		}
		return "[object " + obj.ClassName() + "]"
	}
	if j == nil || goja.IsUndefined(j) {
		return "[object " + obj.ClassName() + "]"
	}
	return j.String()
}

// logSink passes a call's console output to its log, line by line,
// redacted, up to MaxLogBytes. Once closed (the call was abandoned) it
// drops everything, so that no line reaches the log after Execute has
// returned.
type logSink struct {
	log    func(string)
	redact func(string) string

	mu        sync.Mutex
	n         int // bytes passed on
	truncated bool
	closed    bool
}

func (s *logSink) full() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed || s.truncated || s.log == nil
}

func (s *logSink) close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
}

// write logs one console message, which may hold several lines.
func (s *logSink) write(msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.truncated || s.log == nil {
		return
	}
	room := MaxLogBytes - s.n
	// Redact before cutting so that a cut cannot split a secret, but do
	// not redact megabytes that will be dropped: keep a margin past the
	// cut for secrets that straddle it.
	if len(msg) > room+4096 {
		msg = msg[:room+4096]
	}
	if s.redact != nil {
		msg = s.redact(msg)
	}
	for line := range strings.SplitSeq(msg, "\n") {
		line = strings.TrimSuffix(line, "\r")
		if len(line)+1 > MaxLogBytes-s.n {
			if cut := validPrefix(line, MaxLogBytes-s.n); cut != "" {
				s.log(cut)
			}
			s.log(truncatedLine)
			s.truncated = true
			return
		}
		s.n += len(line) + 1
		s.log(line)
	}
}

// validPrefix is the longest prefix of s of at most n bytes that does not
// split a UTF-8 sequence.
func validPrefix(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
