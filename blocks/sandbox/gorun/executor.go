package gorun

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/sandbox"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/lang/jsonval"
	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// Executor runs blocks with runtime "go". It keeps, per distinct source
// code, the result of checking it and a pool of workers: interpreters that
// hold the code compiled and serve one call at a time. A call takes an idle
// worker or compiles a new one, so concurrent calls of one block get one
// interpreter each; the worker goes back to the pool after the call,
// unless the call timed out, was cancelled or panicked.
type Executor struct {
	// programs are kept by source code, the least recently used evicted
	// beyond maxPrograms (watch mode sees many versions).
	programs *lru.Cache[string, *program]
	// maxIdle bounds the idle workers kept per source.
	maxIdle int

	compiles atomic.Int64 // interpreters made, each compiling the code once

	// MaxOutput caps the size in bytes of the JSON of what Execute
	// returns; a larger result fails the call with a size error. 0 means
	// no cap. Set it before the first call.
	MaxOutput int
}

// program is one source code and its workers.
type program struct {
	src  string
	an   *analysis
	code *instrumented // nil when an has problems

	mu      sync.Mutex
	idle    []*worker
	broken  *problem // the code does not compile; kept so as not to retry
	evicted bool
}

// maxPrograms bounds the sources an Executor keeps.
const maxPrograms = 64

// NewExecutor returns an Executor with empty caches.
func NewExecutor() *Executor {
	c, _ := lru.NewWithEvict(maxPrograms, func(_ string, p *program) { p.evict() })
	return &Executor{programs: c, maxIdle: max(8, runtime.GOMAXPROCS(0))}
}

var _ blocks.Executor = (*Executor)(nil)

// Execute runs the block's Execute with the call's inputs as JSON-shaped Go
// values and returns its outputs, converted to the types the call expects.
func (e *Executor) Execute(ctx context.Context, call *blocks.Call) (*blocks.Result, error) {
	if call.Block == nil || call.Block.Def == nil || call.Block.Def.Runtime != lang.RuntimeGo {
		return nil, errors.New("the go executor runs only user blocks with runtime \"go\"")
	}
	def := call.Block.Def
	if err := ctx.Err(); err != nil {
		return nil, stoppedError(def, 0, err)
	}
	input, err := inputValues(call.Inputs)
	if err != nil {
		return nil, newError(def, 0, "cannot pass its inputs: "+err.Error(), hcl.Range{}, nil)
	}
	p := e.program(def.Source)
	if prob := p.an.problem(); prob != nil {
		return nil, compileError(def, prob)
	}
	w, err := e.worker(ctx, p)
	if err != nil {
		return nil, e.startError(ctx, def, p, err)
	}
	bctx, release := blockContext(ctx)
	r, err := w.call(ctx, bctx, input, call.Log)
	release()
	if err != nil {
		if ctx.Err() != nil {
			return nil, stoppedError(def, p.an.execLine, ctx.Err())
		}
		return nil, newError(def, p.an.execLine, err.Error(), sourceRange(def, p.an.execLine, 0), err)
	}
	if !r.Panicked {
		p.put(w, e.maxIdle)
	}
	return Finish(def, p.an.execLine, r, call.Outputs, e.MaxOutput)
}

// Finish turns the outcome of a call of a go block into the call's result,
// or the error the call fails with: a panic at its line, the error Execute
// returned, outputs over maxOutput bytes (0: no cap), or outputs that do
// not fit the fields (see outputValues). execLine is the line of func
// Execute in the block's code.
func Finish(def *lang.BlockDef, execLine int, r Outcome, fields []*lang.Field, maxOutput int) (*blocks.Result, error) {
	if r.Panicked {
		return nil, newError(def, r.Line, "panicked"+at(def, r.Line)+": "+r.PanicMsg, sourceRange(def, r.Line, 0), nil)
	}
	if r.HasErr {
		return nil, newError(def, execLine, "returned an error: "+r.Err+" (Execute is at "+place(def, execLine)+")",
			sourceRange(def, execLine, 0), nil)
	}
	size := r.TooLarge
	for _, b := range r.Outputs {
		size += len(b)
	}
	if r.TooLarge > 0 || (maxOutput > 0 && size > maxOutput) {
		return nil, newError(def, execLine, fmt.Sprintf("returned more than %d bytes of output (%d as JSON)", maxOutput, size),
			sourceRange(def, execLine, 0), nil)
	}
	outs, err := outputValues(r, fields)
	if err != nil {
		return nil, newError(def, execLine, err.Error()+" (Execute is at "+place(def, execLine)+")",
			sourceRange(def, execLine, 0), nil)
	}
	return &blocks.Result{Outputs: outs}, nil
}

// blockContext is the context the code gets: the call's deadline and
// cancellation, without the call's values.
func blockContext(ctx context.Context) (context.Context, context.CancelFunc) {
	var c context.Context
	var cancel context.CancelFunc
	if d, ok := ctx.Deadline(); ok {
		c, cancel = context.WithDeadline(context.Background(), d)
	} else {
		c, cancel = context.WithCancel(context.Background())
	}
	stop := context.AfterFunc(ctx, cancel)
	return c, func() {
		stop()
		cancel()
	}
}

// program returns the entry of a source code, making it (and parsing the
// code) on first use.
func (e *Executor) program(src string) *program {
	if p, ok := e.programs.Get(src); ok {
		return p
	}

	p := &program{src: src, an: analyze(src, nil)}
	if p.an.problem() == nil {
		code, err := instrument(src)
		if err != nil {
			p.an.problems = append(p.an.problems, problem{0, 0, "Go syntax error", err.Error() + "."})
		}
		p.code = code
	}

	if q, ok, _ := e.programs.PeekOrAdd(src, p); ok {
		return q // made meanwhile by another call
	}
	return p
}

// worker takes an idle worker of p or makes one.
func (e *Executor) worker(ctx context.Context, p *program) (*worker, error) {
	p.mu.Lock()
	if p.broken != nil {
		p.mu.Unlock()
		return nil, errBroken
	}
	if n := len(p.idle); n > 0 {
		w := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		return w, nil
	}
	p.mu.Unlock()

	e.compiles.Add(1)
	w, err := start(ctx, p.code, p.an)
	var cf *compileFailure
	if errors.As(err, &cf) {
		p.mu.Lock()
		p.broken = cf.prob
		p.mu.Unlock()
		return nil, errBroken
	}
	return w, err
}

var errBroken = errors.New("the code does not compile")

// startError describes why no worker could be had.
func (e *Executor) startError(ctx context.Context, def *lang.BlockDef, p *program, err error) error {
	var ip *initPanic
	switch {
	case errors.Is(err, errBroken):
		p.mu.Lock()
		prob := p.broken
		p.mu.Unlock()
		return compileError(def, prob)
	case ctx.Err() != nil:
		return stoppedError(def, 0, ctx.Err())
	case errors.As(err, &ip):
		return newError(def, ip.line, "panicked while its package was initialized"+at(def, ip.line)+": "+ip.msg,
			sourceRange(def, ip.line, 0), nil)
	}
	return newError(def, 0, "could not start: "+err.Error(), def.SourceRange, err)
}

// put returns a worker to the pool after a call, or stops it when the pool
// is full or the program was evicted.
func (p *program) put(w *worker, maxIdle int) {
	p.mu.Lock()
	if !p.evicted && len(p.idle) < maxIdle {
		p.idle = append(p.idle, w)
		w = nil
	}
	p.mu.Unlock()
	if w != nil {
		w.kill()
	}
}

func (p *program) evict() {
	p.mu.Lock()
	idle := p.idle
	p.idle, p.evicted = nil, true
	p.mu.Unlock()
	for _, w := range idle {
		w.kill()
	}
}

// Close stops every idle interpreter and forgets the compiled code.
func (e *Executor) Close() error {
	e.programs.Purge() // each evicted
	return nil
}

// at is " at FILE:LINE" for a line of the code, or "" when it is unknown.
func at(def *lang.BlockDef, line int) string {
	if line <= 0 {
		return ""
	}
	return " at " + place(def, line)
}

func compileError(def *lang.BlockDef, p *problem) error {
	return newError(def, p.line, "cannot run: "+place(def, p.line)+": "+p.detail, sourceRange(def, p.line, p.col), nil)
}

// Stopped is the error of a call of a go block stopped by its timeout or
// by cancellation (err says which); line is that of func Execute, 0 when
// unknown.
func Stopped(def *lang.BlockDef, line int, err error) error { return stoppedError(def, line, err) }

func stoppedError(def *lang.BlockDef, line int, err error) error {
	what := "exceeded its timeout"
	if errors.Is(err, context.Canceled) {
		what = "was cancelled"
	}
	where := ""
	if line > 0 {
		where = " (Execute is at " + place(def, line) + ")"
	}
	return newError(def, line, what+"; its code was stopped"+where, sourceRange(def, line, 0), err)
}

// outputValues converts what Execute returned to cty values: each field's
// JSON, decoded with the type it implies, then converted to the type of
// the expected output field. With no expected fields, every field is kept.
func outputValues(r Outcome, fields []*lang.Field) (map[string]cty.Value, error) {
	if r.NilMap && len(fields) > 0 {
		return nil, errors.New("returned a nil map and no error")
	}
	for _, k := range lang.SortedKeys(r.Unreadable) {
		return nil, fmt.Errorf("returned output %q that cannot be read back: %s", k, r.Unreadable[k])
	}
	vals := make(map[string]cty.Value, len(r.Outputs))
	for k, b := range r.Outputs {
		v, err := jsonval.Decode(b)
		if err != nil {
			return nil, fmt.Errorf("returned output %q that cannot be read back: %s", k, err)
		}
		vals[k] = v
	}
	if len(fields) == 0 {
		if len(r.BadJSON) > 0 {
			k := lang.SortedKeys(r.BadJSON)[0]
			return nil, fmt.Errorf("returned output %q, which is not JSON-shaped: %s", k, r.BadJSON[k])
		}
		return vals, nil
	}
	out := make(map[string]cty.Value, len(fields))
	for _, f := range fields {
		if msg, ok := r.BadJSON[f.Name]; ok {
			if value, ok := nonFinite(msg); ok {
				path := "?"
				if f.Type.Type == cty.Number {
					path = "" // the output itself
				}
				return nil, errors.New(sandbox.NotANumber(f.Name, value, path))
			}
			return nil, fmt.Errorf("returned output %q, which is not JSON-shaped: %s", f.Name, msg)
		}
		v, ok := vals[f.Name]
		if !ok {
			return nil, fmt.Errorf("returned no output %q", f.Name)
		}
		cv, err := convert.Convert(v, f.Type.Type)
		if err != nil {
			return nil, fmt.Errorf("returned output %q, which must be %s: %s",
				f.Name, lang.FriendlyTypeName(f.Type.Type), lang.FormatConvertError(err))
		}
		out[f.Name] = cv
	}
	return out, nil
}

// nonFinite reads encoding/json's refusal of a NaN or an infinity
// ("json: unsupported value: NaN", a *json.UnsupportedValueError) and
// returns the value as JavaScript writes it.
func nonFinite(msg string) (string, bool) {
	switch strings.TrimPrefix(msg, "json: unsupported value: ") {
	case "NaN":
		return "NaN", true
	case "+Inf":
		return "Infinity", true
	case "-Inf":
		return "-Infinity", true
	}
	return "", false
}
