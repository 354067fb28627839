package gorun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sync"

	"github.com/traefik/yaegi/interp"
)

// A worker is one interpreter holding a block's compiled code, with a
// goroutine of its own that runs the serve loop below under
// EvalWithContext. yaegi stops interpreted code only when the context of
// an EvalWithContext (or ExecuteWithContext) ends, and a function value
// taken out of an interpreter can be neither stopped nor trusted after a
// stop (it returns zero values). So every call goes through the one
// long-running EvalWithContext of its worker: the loop takes a request,
// calls block.Execute, and hands back the result. (One EvalWithContext per
// call would cost a fresh goroutine whose stack grows through yaegi's deep
// recursion each time: twice the cost of a trivial call.) A worker serves
// one call at a time; after a timeout, a cancellation or a panic it is
// stopped and dropped, never reused.
type worker struct {
	reqs  chan request
	resps chan Outcome  // buffered: the loop never waits for the caller
	quit  chan struct{} // closed to end the loop
	stop  context.CancelFunc
	dead  chan struct{} // closed when the loop has ended
	err   error         // why it ended, set before dead is closed
	once  sync.Once
	log   *logWriter
}

type request struct {
	ctx   context.Context
	input map[string]any
}

// Outcome is what one call of a go block's Execute gave, whichever engine
// ran it: the interpreter encodes it on its worker's goroutine (String,
// Error and MarshalJSON methods are interpreted code), a compiled program
// in its own process. Finish turns it into the call's result or error.
type Outcome struct {
	Outputs map[string]json.RawMessage `json:"outputs,omitempty"`
	BadJSON map[string]string          `json:"bad_json,omitempty"` // outputs json.Marshal refused, with why
	// Unreadable are outputs a compiled program found nested too deeply
	// to be read back, with why (the interpreter finds them on reading).
	Unreadable map[string]string `json:"unreadable,omitempty"`
	NilMap     bool              `json:"nil_map,omitempty"`
	Err        string            `json:"err,omitempty"` // the error Execute returned, if HasErr
	HasErr     bool              `json:"has_err,omitempty"`
	Panicked   bool              `json:"panicked,omitempty"`
	PanicMsg   string            `json:"panic,omitempty"`
	Line       int               `json:"line,omitempty"` // of the block's code where it panicked; 0 unknown
	// TooLarge is the size of the outputs' JSON that a compiled program
	// found over its cap, and sent none of.
	TooLarge int `json:"too_large,omitempty"`
}

// servePackage is the import path of the package of helper functions the
// serve loop uses; it is added to an interpreter after the block's code is
// compiled, so the code cannot import it (nor can it pass validation).
const servePackage = "flowctl.invalid/gorun"

// serveLoop is added to the interpreter's main package; the loop is in a
// function because yaegi mishandles variables declared by statements at the
// top level. A panic in Execute ends the loop, and so the worker: it is
// recovered once, here, and reported at the line of the statement that was
// running (see instrument). (A deferred recover for each call would cost
// more than the rest of a trivial call.)
const serveLoop = `func flowctlServe() {
	defer func() {
		if r := recover(); r != nil {
			gorun.Panic(r, block.FlowctlLine_)
		}
	}()
	for {
		ctx, input, ok := gorun.Next()
		if !ok {
			return
		}
		gorun.Done(block.Execute(ctx, input))
	}
}`

// start makes a worker: an interpreter that compiles the block's code
// (instrumented) and runs its package initialization, both under ctx, then
// the serve loop on a goroutine of its own. Its error is ctx.Err(), a
// *compileFailure or an *initPanic.
func start(ctx context.Context, code *instrumented, an *analysis) (*worker, error) {
	w := &worker{
		reqs:  make(chan request),
		resps: make(chan Outcome, 1),
		quit:  make(chan struct{}),
		dead:  make(chan struct{}),
		log:   &logWriter{},
	}
	// yaegi writes a line to stderr for each frame a panic unwinds; the
	// positions in it are unreliable (see instrument).
	i, err := newInterp(an.imports, w.log, io.Discard)
	if err != nil {
		return nil, &compileFailure{&problem{0, 0, "Go compile error", "The interpreter could not start: " + err.Error() + "."}}
	}
	// EvalWithContext, not Compile and ExecuteWithContext: yaegi's
	// ExecuteWithContext writes its results from two goroutines when its
	// context ends first (a data race); EvalWithContext does not.
	if _, err := i.EvalWithContext(ctx, code.code); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if p, ok := isPanic(err); ok {
			// A line of the block's own when one of its package-level
			// initializers panicked; none when the interpreter failed
			// before running any of it.
			if v, err := i.Eval("block." + lineVar); err == nil && v.CanInt() && v.Int() > 0 {
				return nil, &initPanic{msg: fmt.Sprint(p.Value), line: int(v.Int())}
			}
			// A panic of yaegi's compiler.
			return nil, &compileFailure{compileProblem(fmt.Sprint(p.Value), an, code, true)}
		}
		return nil, &compileFailure{compileProblem(err.Error(), an, code, false)}
	}
	if prob := checkExecute(i, an); prob != nil {
		return nil, &compileFailure{prob}
	}
	err = i.Use(interp.Exports{servePackage + "/gorun": {
		"Next":  reflect.ValueOf(w.next),
		"Done":  reflect.ValueOf(w.done),
		"Panic": reflect.ValueOf(w.panic),
	}})
	if err != nil {
		return nil, err
	}
	if _, err := i.Eval(`import "` + servePackage + `"`); err != nil {
		return nil, err
	}
	if _, err := i.Eval(serveLoop); err != nil {
		return nil, err
	}
	life, stop := context.WithCancel(context.Background())
	w.stop = stop
	go func() {
		_, err := i.EvalWithContext(life, "flowctlServe()")
		w.err = err
		close(w.dead)
	}()
	return w, nil
}

// compileFailure is code that does not compile; the failure is kept.
type compileFailure struct{ prob *problem }

func (e *compileFailure) Error() string { return e.prob.detail }

// initPanic is a panic while the block's package was initialized.
type initPanic struct {
	msg  string
	line int
}

func (e *initPanic) Error() string { return e.msg }

// call runs Execute once, with the context bctx. It returns a response, or
// an error when ctx ended first (ctx.Err()) or the loop ended; in both
// cases the worker is dead.
func (w *worker) call(ctx, bctx context.Context, input map[string]any, logf func(string)) (Outcome, error) {
	w.log.begin(logf)
	defer w.log.end()
	select {
	case w.reqs <- request{ctx: bctx, input: input}:
	case <-w.dead:
		w.kill()
		return Outcome{}, w.deadError()
	case <-ctx.Done():
		w.kill()
		return Outcome{}, ctx.Err()
	}
	select {
	case r := <-w.resps:
		if r.Panicked {
			w.kill()
		}
		return r, nil
	case <-w.dead:
		// After a panic the loop ends right after handing the response.
		w.kill()
		select {
		case r := <-w.resps:
			return r, nil
		default:
			return Outcome{}, w.deadError()
		}
	case <-ctx.Done():
		w.kill()
		return Outcome{}, ctx.Err()
	}
}

func (w *worker) deadError() error {
	if w.err != nil {
		return fmt.Errorf("the interpreter stopped: %w", w.err)
	}
	return errors.New("the interpreter stopped")
}

// kill stops the worker's interpreter: ExecuteWithContext sees its context
// done and stops the interpreted code (loops end at their next step,
// channel operations return); Next then ends the loop. A call into a
// standard function that does not return keeps its goroutine until it does.
func (w *worker) kill() {
	w.once.Do(func() {
		w.stop()
		close(w.quit)
	})
}

// next is gorun.Next: it waits for the next request.
func (w *worker) next() (context.Context, map[string]any, bool) {
	select {
	case r := <-w.reqs:
		return r.ctx, r.input, true
	case <-w.quit:
		return nil, nil, false
	}
}

// done is gorun.Done: it encodes what Execute returned and hands it back.
func (w *worker) done(out map[string]any, err error) {
	var r Outcome
	if err != nil {
		r.HasErr, r.Err = true, err.Error()
	} else {
		r.NilMap = out == nil
		r.Outputs = make(map[string]json.RawMessage, len(out))
		for k, v := range out {
			b, err := json.Marshal(v)
			if err != nil {
				if r.BadJSON == nil {
					r.BadJSON = map[string]string{}
				}
				r.BadJSON[k] = err.Error()
				continue
			}
			r.Outputs[k] = b
		}
	}
	w.send(r)
}

// panic is gorun.Panic: Execute panicked with v at the line.
func (w *worker) panic(v any, line int) {
	w.send(Outcome{Panicked: true, PanicMsg: fmt.Sprint(v), Line: line})
}

func (w *worker) send(r Outcome) {
	select {
	case w.resps <- r:
	default: // a stopped worker's late result
	}
}

// logWriter is an interpreter's stdout, where the print and println
// built-ins write: it passes whole lines to the current call's Log, up to
// maxLog bytes a call, and drops what is written between calls.
type logWriter struct {
	mu      sync.Mutex
	logf    func(string)
	buf     []byte
	written int
	cut     bool
}

const maxLog = 1 << 20

func (l *logWriter) begin(logf func(string)) {
	l.mu.Lock()
	l.logf, l.buf, l.written, l.cut = logf, nil, 0, false
	l.mu.Unlock()
}

func (l *logWriter) end() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.buf) > 0 && l.logf != nil && !l.cut {
		l.logf(string(l.buf))
	}
	l.logf, l.buf = nil, nil
}

func (l *logWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.logf == nil || l.cut {
		return len(p), nil
	}
	l.written += len(p)
	if l.written > maxLog {
		l.cut = true
		l.logf(fmt.Sprintf("(the block printed more than %d bytes; the rest is not logged)", maxLog))
		return len(p), nil
	}
	l.buf = append(l.buf, p...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			break
		}
		l.logf(string(l.buf[:i]))
		l.buf = l.buf[i+1:]
	}
	return len(p), nil
}
