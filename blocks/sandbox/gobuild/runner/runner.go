package runner

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"
)

// WorkerArg is the first argument of a program started as a worker.
const WorkerArg = "-flowctl-compiled-worker"

// blockFile ends the path of the block's code in the program, as -trimpath
// records it.
const blockFile = "/block/block.go"

// Outcome is what one call of Execute gave; its JSON is that of
// flowctl's gorun.Outcome.
type Outcome struct {
	Outputs map[string]json.RawMessage `json:"outputs,omitempty"`
	BadJSON map[string]string          `json:"bad_json,omitempty"`
	// Unreadable are outputs nested deeper than flowctl reads JSON.
	Unreadable map[string]string `json:"unreadable,omitempty"`
	NilMap     bool              `json:"nil_map,omitempty"`
	Err        string            `json:"err,omitempty"`
	HasErr     bool              `json:"has_err,omitempty"`
	Panicked   bool              `json:"panicked,omitempty"`
	PanicMsg   string            `json:"panic,omitempty"`
	Line       int               `json:"line,omitempty"`
	// TooLarge is the size of the outputs' JSON when it is over the
	// worker's cap: the program sends none of them.
	TooLarge int `json:"too_large,omitempty"`
}

// request is what the program reads of a request.
type request struct {
	ID        uint64          `json:"id"`
	Inputs    json.RawMessage `json:"inputs"`
	TimeoutMS int64           `json:"timeout_ms,omitempty"`
}

// message is a line the program writes: its hello, a log line, a reply.
type message struct {
	Hello   bool     `json:"hello,omitempty"`
	Missing []string `json:"missing,omitempty"`
	ID      uint64   `json:"id,omitempty"`
	Log     *string  `json:"log,omitempty"`
	Done    bool     `json:"done,omitempty"`
	Error   string   `json:"error,omitempty"`
	Timeout bool     `json:"timeout,omitempty"`
	Outcome *Outcome `json:"outcome,omitempty"`
	Recycle bool     `json:"recycle,omitempty"`
}

// Execute is the type of a block's Execute.
type Execute = func(context.Context, map[string]any) (map[string]any, error)

var out struct {
	mu sync.Mutex
	w  *bufio.Writer
}

// send writes one message.
func send(m message) {
	b, err := encode(m)
	if err != nil {
		b, _ = json.Marshal(message{ID: m.ID, Done: true, Error: "the reply could not be encoded: " + err.Error()})
	}
	out.mu.Lock()
	defer out.mu.Unlock()
	out.w.Write(append(b, '\n'))
	out.w.Flush()
}

// encode is the JSON of a message. The outputs of a reply are JSON
// already (encoding/json wrote them): they are put in as they are, for
// flowctl to read (and judge) as it reads the interpreter's.
func encode(m message) ([]byte, error) {
	o := m.Outcome
	if o == nil || len(o.Outputs) == 0 {
		return json.Marshal(m)
	}
	rest := *o
	rest.Outputs = nil
	m.Outcome = nil
	head, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	tail, err := json.Marshal(rest)
	if err != nil {
		return nil, err
	}
	buf := append(head[:len(head)-1:len(head)-1], `,"outcome":{"outputs":{`...)
	first := true
	for k, v := range o.Outputs {
		if !first {
			buf = append(buf, ',')
		}
		first = false
		key, _ := json.Marshal(k)
		buf = append(buf, key...)
		buf = append(buf, ':')
		buf = append(buf, v...)
	}
	buf = append(buf, '}')
	if len(tail) > 2 { // more than {}
		buf = append(buf, ',')
		buf = append(buf, tail[1:]...)
	} else {
		buf = append(buf, '}')
	}
	return append(buf, '}'), nil
}

// Serve runs the worker protocol with the block's Execute until the
// request pipe closes or the worker is to be replaced; it does not return.
func Serve(execute Execute) {
	if len(os.Args) < 2 || os.Args[1] != WorkerArg {
		fmt.Fprintln(os.Stderr, "this program is a compiled flowctl go block; flowctl runs it")
		os.Exit(2)
	}
	in := os.NewFile(3, "requests")
	out.w = bufio.NewWriterSize(os.NewFile(4, "replies"), 64<<10)
	send(message{Hello: true, Missing: cfg.missing})
	reqs := make(chan request, 16)
	go func() {
		defer close(reqs)
		br := bufio.NewReaderSize(in, 64<<10)
		for {
			line, err := br.ReadBytes('\n')
			if err != nil {
				return
			}
			var r request
			if err := json.Unmarshal(line, &r); err != nil {
				fmt.Fprintln(os.Stderr, "unreadable request:", err)
				os.Exit(1)
			}
			reqs <- r
		}
	}()
	for r := range reqs {
		reply := call(execute, r)
		if !reply.Recycle && cfg.cpu > 0 && cpuUsed() > cfg.cpu/2 {
			reply.Recycle = true
		}
		send(reply)
		if reply.Recycle {
			os.Exit(0)
		}
	}
	os.Exit(0)
}

// call runs one request. When its deadline passes first, the reply says
// so and the process ends: the code cannot be stopped otherwise.
func call(execute Execute, r request) message {
	reply := message{ID: r.ID, Done: true}
	var input map[string]any
	if err := json.Unmarshal(r.Inputs, &input); err != nil {
		reply.Error = "the inputs could not be read: " + err.Error()
		return reply
	}
	ctx := context.Background()
	logs.begin(r.ID)
	if r.TimeoutMS > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(r.TimeoutMS)*time.Millisecond)
		defer cancel()
		stop := context.AfterFunc(ctx, func() {
			logs.end()
			send(message{ID: r.ID, Done: true, Error: "exceeded its timeout", Timeout: true, Recycle: true})
			os.Exit(0)
		})
		defer func() {
			if !stop() {
				select {} // the reply above is on its way, then the exit
			}
		}()
	}
	o := run(execute, ctx, input)
	logs.end()
	reply.Outcome = &o
	return reply
}

// run calls Execute and encodes what it returned, each output with
// encoding/json, as the interpreter does.
func run(execute Execute, ctx context.Context, input map[string]any) (o Outcome) {
	defer func() {
		if v := recover(); v != nil {
			o = Outcome{Panicked: true, PanicMsg: fmt.Sprint(v), Line: panicLine()}
		}
	}()
	res, err := execute(ctx, input)
	if err != nil {
		return Outcome{HasErr: true, Err: err.Error()}
	}
	o.NilMap = res == nil
	o.Outputs = make(map[string]json.RawMessage, len(res))
	size := 0
	for k, v := range res {
		b, err := json.Marshal(v)
		if err != nil {
			if o.BadJSON == nil {
				o.BadJSON = map[string]string{}
			}
			o.BadJSON[k] = err.Error()
			continue
		}
		if tooDeep(b) {
			if o.Unreadable == nil {
				o.Unreadable = map[string]string{}
			}
			o.Unreadable[k] = fmt.Sprintf("its JSON is nested more than %d levels deep (exceeded max depth)", maxDepth)
			continue
		}
		o.Outputs[k] = b
		size += len(b)
	}
	if cfg.output > 0 && size > cfg.output {
		// Refused here, so that flowctl never reads more than the cap of
		// a well-behaved program's reply.
		o.Outputs, o.TooLarge = nil, size
	}
	return o
}

// maxDepth is how deeply flowctl reads JSON nested, as encoding/json.
const maxDepth = 10000

// tooDeep reports whether JSON text nests arrays and objects deeper than
// maxDepth.
func tooDeep(b []byte) bool {
	depth, inString, escaped := 0, false, false
	for _, c := range b {
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case inString:
		case c == '[' || c == '{':
			if depth++; depth > maxDepth {
				return true
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return false
}

// panicLine is the line of the block's code where the panic being
// recovered happened: the innermost frame in the block's file.
func panicLine() int {
	pcs := make([]uintptr, 64)
	n := runtime.Callers(3, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if strings.HasSuffix(f.File, blockFile) {
			return f.Line
		}
		if !more {
			return 0
		}
	}
}

// Print and Println are the block's print and println: they write to the
// running call's log, each argument formatted with %v and separated by a
// space, as the interpreter's do.
func Print(args ...any) { logs.write(format(args, false)) }

// Println is Print with a newline.
func Println(args ...any) { logs.write(format(args, true)) }

func format(args []any, nl bool) []byte {
	var b []byte
	for i, a := range args {
		if i > 0 {
			b = append(b, ' ')
		}
		b = fmt.Appendf(b, "%v", a)
	}
	if nl {
		b = append(b, '\n')
	}
	return b
}

// maxLog is how much one call may print; the rest is dropped after a line
// that says so.
const maxLog = 1 << 20

var logs logWriter

// logWriter passes whole lines of what the running call prints to its
// log, up to maxLog bytes, and drops what is printed between calls.
type logWriter struct {
	mu      sync.Mutex
	id      uint64 // the running call; 0 between calls
	buf     []byte
	written int
	cut     bool
}

func (l *logWriter) begin(id uint64) {
	l.mu.Lock()
	l.id, l.buf, l.written, l.cut = id, nil, 0, false
	l.mu.Unlock()
}

func (l *logWriter) end() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.buf) > 0 && l.id != 0 && !l.cut {
		line := string(l.buf)
		send(message{ID: l.id, Log: &line})
	}
	l.id, l.buf = 0, nil
}

func (l *logWriter) write(p []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.id == 0 || l.cut {
		return
	}
	l.written += len(p)
	if l.written > maxLog {
		l.cut = true
		line := fmt.Sprintf("(the block printed more than %d bytes; the rest is not logged)", maxLog)
		send(message{ID: l.id, Log: &line})
		return
	}
	l.buf = append(l.buf, p...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			break
		}
		line := string(l.buf[:i])
		send(message{ID: l.id, Log: &line})
		l.buf = l.buf[i+1:]
	}
}
