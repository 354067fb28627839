package jsrun

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/dop251/goja"
	"github.com/dop251/goja/parser"
	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/sandbox"
	"github.com/flowctl/flowctl/lang"
	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/zclconf/go-cty/cty"
)

const (
	// MaxCallStackSize is how deeply a call's functions may nest. goja
	// unwinds deep stacks in time quadratic in their depth, so the limit
	// is kept low.
	MaxCallStackSize = 1000
	// MaxLogBytes is how much of a call's console output reaches its log;
	// the rest is dropped after a "[log truncated]" line.
	MaxLogBytes = 64 << 10
	// abandonAfter is how long Execute waits, once the context has ended
	// and the runtime has been interrupted, before giving up on code stuck
	// in a built-in function.
	abandonAfter = time.Second
)

// truncatedLine ends a call's log when console output passes MaxLogBytes.
const truncatedLine = "[log truncated]"

// Executor runs js blocks. It compiles each distinct source once and runs
// every call in a fresh goja Runtime. It is safe for concurrent use.
type Executor struct {
	// programs are the compiled sources, by their SHA-256; the least
	// recently used go beyond MaxPrograms (watch mode sees many versions).
	programs *lru.Cache[[32]byte, *compiled]

	// MaxOutput caps the size in bytes of the JSON text of a call's
	// result; a larger result fails the call with a size error. 0 means
	// no cap. Set it before the first call.
	MaxOutput int
}

var _ blocks.Executor = (*Executor)(nil)

// MaxPrograms bounds the compiled sources an Executor keeps.
const MaxPrograms = 256

// NewExecutor returns an Executor with an empty program cache.
func NewExecutor() *Executor {
	c, _ := lru.New[[32]byte, *compiled](MaxPrograms)
	return &Executor{programs: c}
}

// Program returns the compiled program of a js block definition, compiling
// its source the first time the source is seen.
func (e *Executor) Program(def *lang.BlockDef) (*Program, error) {
	key := sourceKey(def.Source)
	c, ok := e.programs.Get(key)
	if !ok {
		c = compileSource(def.Source)
		if prev, ok, _ := e.programs.PeekOrAdd(key, c); ok {
			c = prev // compiled meanwhile by another call
		}
	}
	if c.err != nil {
		return nil, c.err.at(def)
	}
	p := newProgram(def, c.prog)
	p.maxOutput = e.MaxOutput
	return p, nil
}

// Execute runs one call of a js block.
func (e *Executor) Execute(ctx context.Context, call *blocks.Call) (*blocks.Result, error) {
	p, err := e.callProgram(ctx, call)
	if err != nil {
		return nil, err
	}
	return p.Run(ctx, call)
}

// ExecuteUntil runs one call of a js block on the caller's goroutine,
// interrupted at deadline (the zero time: never). It is for a sandbox
// worker process, whose calls nothing ends but their deadlines, and which
// the pool kills when a call has not ended shortly after its deadline:
// unlike Execute it does not give up on code stuck in a built-in. It
// needs no context, and so makes one timer a call and no goroutine.
// inputs, when not nil, is the JSON text of the object of the call's
// inputs, read in place of call.Inputs: a worker has them as text.
func (e *Executor) ExecuteUntil(deadline time.Time, call *blocks.Call, inputs []byte) (*blocks.Result, error) {
	p, err := e.callProgram(context.Background(), call)
	if err != nil {
		return nil, err
	}
	return p.RunUntil(deadline, call, inputs)
}

// callProgram is the program of a call's block, bundled with its
// packages when it has some.
func (e *Executor) callProgram(ctx context.Context, call *blocks.Call) (*Program, error) {
	if call.Block == nil || call.Block.Def == nil {
		return nil, errors.New("the js runtime was asked to run a block without a definition")
	}
	def := call.Block.Def
	if def.Runtime != lang.RuntimeJS {
		return nil, fmt.Errorf("block %q has runtime %q; the js runtime cannot run it", def.Name, def.Runtime)
	}
	def, err := Bundled(ctx, def)
	if err != nil {
		return nil, err
	}
	return e.Program(def)
}

// outcome is what a call's goroutine reports.
type outcome struct {
	outputs     map[string]cty.Value
	err         error
	interrupted bool
	line        int // where an interrupted call was, in the file
}

// promiseType is what a Promise object exports as; ExportType, unlike
// Export, does not copy an ordinary object.
var promiseType = reflect.TypeOf((*goja.Promise)(nil))

// errInterrupt is the value the runtime is interrupted with.
var errInterrupt = errors.New("interrupted")

// Run calls the program's execute function with a call's inputs in a fresh
// runtime and returns a value for each of the call's output fields. It
// returns within about a second of the context's end whatever the code
// does.
func (p *Program) Run(ctx context.Context, call *blocks.Call) (*blocks.Result, error) {
	if ctx.Err() != nil {
		return nil, p.stopped(ctx.Err(), 0, false)
	}
	rt, input, sink, err := p.prepare(call, nil)
	if err != nil {
		return nil, err
	}
	var o outcome
	done := make(chan outcome, 1)
	goRun(func() { done <- p.runIn(rt, sink, input, call) })
	select {
	case o = <-done:
	case <-ctx.Done():
		rt.Interrupt(errInterrupt)
		t := time.NewTimer(abandonAfter)
		select {
		case o = <-done:
			t.Stop()
		case <-t.C:
			// The code is inside a built-in, which goja cannot
			// interrupt. Leave the goroutine to end when the built-in
			// returns; it may no longer write to the call's log.
			sink.close()
			return nil, p.stopped(ctx.Err(), 0, true)
		}
	}
	return p.result(ctx.Err, o)
}

// RunUntil is Run on the caller's goroutine, interrupted at deadline (the
// zero time: never); see Executor.ExecuteUntil.
func (p *Program) RunUntil(deadline time.Time, call *blocks.Call, inputs []byte) (*blocks.Result, error) {
	rt, input, sink, err := p.prepare(call, inputs)
	if err != nil {
		return nil, err
	}
	if !deadline.IsZero() {
		t := time.AfterFunc(time.Until(deadline), func() { rt.Interrupt(errInterrupt) })
		defer t.Stop()
	}
	o := p.runIn(rt, sink, input, call)
	return p.result(func() error { return context.DeadlineExceeded }, o)
}

// prepare makes a call's fresh runtime, its input object (from the JSON
// text of the inputs when it is given, else from call.Inputs) and its
// log.
func (p *Program) prepare(call *blocks.Call, inputs []byte) (*goja.Runtime, *goja.Object, *logSink, error) {
	rt := goja.New()
	var input *goja.Object
	var err error
	if inputs != nil {
		input, err = inputText(rt, inputs)
	} else {
		input, err = inputObject(rt, call.Inputs)
	}
	if err != nil {
		return nil, nil, nil, newError(p.block, 0, "cannot pass the inputs: "+err.Error(), nil)
	}
	return rt, input, &logSink{log: call.Log, redact: call.Redact}, nil
}

// result is the result of a call that ended with outcome o; cause is why
// an interrupted call was interrupted.
func (p *Program) result(cause func() error, o outcome) (*blocks.Result, error) {
	if o.interrupted {
		return nil, p.stopped(cause(), o.line, false)
	}
	if o.err != nil {
		return nil, o.err
	}
	return &blocks.Result{Outputs: o.outputs}, nil
}

// stopped is the error of a call that ended with its context, whose
// error is cause.
func (p *Program) stopped(cause error, line int, abandoned bool) error {
	msg := "exceeded its timeout"
	if !errors.Is(cause, context.DeadlineExceeded) {
		msg = "was cancelled"
		if cause == nil {
			cause = context.Canceled
		}
	}
	if abandoned {
		msg += " while inside a built-in function that could not be interrupted"
	}
	return newError(p.block, line, msg, cause)
}

// runIn runs a call in rt, on a goroutine of its own: a goja Runtime is not
// safe for concurrent use, and only Interrupt is called from elsewhere.
func (p *Program) runIn(rt *goja.Runtime, sink *logSink, in *goja.Object, call *blocks.Call) (o outcome) {
	defer func() {
		if x := recover(); x != nil {
			o = p.fromPanic(x)
		}
	}()
	rt.SetMaxCallStackSize(MaxCallStackSize)
	rt.SetParserOptions(parser.WithDisableSourceMaps) // for eval and Function
	g := rt.GlobalObject()
	// goja's one non-standard global, GoError, stays: it is an ordinary
	// Error constructor, and deleting it would build it (and the Error
	// prototype) on every call.

	// Take the built-ins this package uses before the block's code can
	// replace them. JSON.stringify is the runtime's own algorithm, which
	// the code cannot reach (and building the JSON global would cost a
	// third of a trivial call).
	stringify := stringifier(rt)
	freeze, _ := goja.AssertFunction(g.Get("Object").(*goja.Object).Get("freeze"))
	installConsole(rt, g, sink, stringify)

	if _, err := rt.RunProgram(p.prog); err != nil {
		return p.fail(err, stringify, "")
	}
	execute, ok := goja.AssertFunction(rt.Get("execute"))
	if !ok {
		return outcome{err: newError(p.block, p.fileLine(1), "execute is not a function; the source must define function execute(input, ctx)", nil)}
	}
	cx := rt.NewObject()
	_ = cx.Set("step", call.Step)
	if _, err := freeze(goja.Undefined(), cx); err != nil {
		return p.fail(err, stringify, "")
	}
	res, err := execute(goja.Undefined(), in, cx)
	if err != nil {
		return p.fail(err, stringify, "")
	}
	// The callable ran the job queue to its end: a Promise still pending
	// now would never settle (there are no timers or I/O to settle it).
	if obj, ok := res.(*goja.Object); ok && obj.ExportType() == promiseType {
		if pr, ok := obj.Export().(*goja.Promise); ok {
			switch pr.State() {
			case goja.PromiseStatePending:
				return outcome{err: newError(p.block, 0, "execute returned a Promise that never settled (there are no timers or I/O to wait for)", nil)}
			case goja.PromiseStateRejected:
				return p.rejected(pr.Result(), stringify)
			}
			res = pr.Result()
		}
	}
	out, ok, err := jsonText(rt, res)
	if err != nil {
		return p.fail(err, stringify, "cannot serialise the result of execute: ")
	}
	outputs, oerr := p.decode(out, ok, call.Outputs)
	if oerr == nil && bytes.Contains(out, []byte("null")) {
		// JSON.stringify wrote NaN and the infinities as null.
		if msg := notNumbers(rt, res.(*goja.Object), call.Outputs); msg != "" {
			return outcome{err: newError(p.block, 0, msg, nil)}
		}
	}
	return outcome{outputs: outputs, err: oerr}
}

// decode turns the JSON text of execute's result (ok false: undefined)
// into a value for each output field.
func (p *Program) decode(text []byte, ok bool, fields []*lang.Field) (map[string]cty.Value, error) {
	want := func() string {
		if len(fields) == 0 {
			return "an object"
		}
		names := make([]string, len(fields))
		for i, f := range fields {
			names[i] = f.Name
		}
		return "an object with the fields " + strings.Join(names, ", ")
	}
	if !ok {
		if len(fields) == 0 {
			return map[string]cty.Value{}, nil
		}
		return nil, newError(p.block, 0, "execute returned undefined; it must return "+want(), nil)
	}
	if p.maxOutput > 0 && len(text) > p.maxOutput {
		return nil, newError(p.block, 0, fmt.Sprintf("execute returned more than %d bytes of output (%d as JSON)", p.maxOutput, len(text)), nil)
	}
	if len(text) == 0 || text[0] != '{' {
		return nil, newError(p.block, 0, fmt.Sprintf("execute must return %s; it returned %s", want(), clip(string(text), 200)), nil)
	}
	values, err := decodeFields(text, fields)
	if err != nil {
		return nil, newError(p.block, 0, "cannot read the result of execute: "+err.Error(), nil)
	}
	var missing []string
	for _, f := range fields {
		if _, ok := values[f.Name]; !ok {
			missing = append(missing, strconv.Quote(f.Name))
		}
	}
	switch len(missing) {
	case 0:
		return values, nil
	case 1:
		return nil, newError(p.block, 0, fmt.Sprintf(
			"the result of execute has no field %s (fields that are undefined or functions are dropped); it must return %s", missing[0], want()), nil)
	}
	return nil, newError(p.block, 0, fmt.Sprintf(
		"the result of execute has no fields %s (fields that are undefined or functions are dropped); it must return %s", strings.Join(missing, ", "), want()), nil)
}

// fail turns an error from goja into the call's outcome.
func (p *Program) fail(err error, stringify goja.Callable, prefix string) outcome {
	var ie *goja.InterruptedError
	if errors.As(err, &ie) {
		return outcome{interrupted: true, line: p.frameLine(ie.Stack())}
	}
	var so *goja.StackOverflowError
	if errors.As(err, &so) {
		return outcome{err: newError(p.block, p.frameLine(so.Stack()), fmt.Sprintf("%sRangeError: Maximum call stack size exceeded (more than %d nested calls)", prefix, MaxCallStackSize), nil)}
	}
	var ex *goja.Exception
	if errors.As(err, &ex) {
		return outcome{err: newError(p.block, p.frameLine(ex.Stack()), prefix+describe(ex.Value(), stringify, "threw "), nil)}
	}
	return outcome{err: newError(p.block, 0, prefix+err.Error(), nil)}
}

// rejected is the outcome of a Promise rejected with reason.
func (p *Program) rejected(reason goja.Value, stringify goja.Callable) outcome {
	return outcome{err: newError(p.block, p.stackLine(reason), describe(reason, stringify, "the Promise returned by execute was rejected with "), nil)}
}

// fromPanic turns a panic on the call's goroutine into its outcome: goja
// panics with JavaScript exceptions outside its own calls (a throwing
// getter read from Go) and with Go errors on its bugs.
func (p *Program) fromPanic(x any) outcome {
	if err, ok := x.(error); ok {
		var ie *goja.InterruptedError
		var so *goja.StackOverflowError
		var ex *goja.Exception
		if errors.As(err, &ie) || errors.As(err, &so) || errors.As(err, &ex) {
			return p.fail(err, nil, "")
		}
	}
	return outcome{err: newError(p.block, 0, fmt.Sprintf("internal error in the JavaScript engine: %v", x), nil)}
}

// frameLine is the file line of the innermost stack frame in the block's
// code.
func (p *Program) frameLine(frames []goja.StackFrame) int {
	for i := range frames {
		if frames[i].SrcName() == progName {
			return p.fileLine(frames[i].Position().Line)
		}
	}
	return 0
}

var stackPos = regexp.MustCompile(regexp.QuoteMeta(progName) + `:(\d+):\d+`)

// stackLine is the file line at which an Error object was created, read
// from its stack property; 0 for other values.
func (p *Program) stackLine(v goja.Value) (line int) {
	obj, ok := v.(*goja.Object)
	if !ok || obj.ClassName() != "Error" {
		return 0
	}
	defer func() {
		if recover() != nil {
			line = 0
		}
	}()
	st := obj.Get("stack")
	if st == nil {
		return 0
	}
	if m := stackPos.FindStringSubmatch(st.String()); m != nil {
		n, _ := strconv.Atoi(m[1])
		return p.fileLine(n)
	}
	return 0
}

// describe renders a thrown value: "TypeError: message" for errors, else
// the value as JSON after prefix.
func describe(v goja.Value, stringify goja.Callable, prefix string) (s string) {
	defer func() {
		if recover() != nil {
			s = prefix + "a value that cannot be shown"
		}
	}()
	if obj, ok := v.(*goja.Object); ok && obj.ClassName() == "Error" {
		name, msg := propString(obj, "name"), propString(obj, "message")
		switch {
		case name == "":
			name = "Error"
		case msg == "":
			return name
		}
		return name + ": " + msg
	}
	return prefix + repr(v, stringify)
}

// propString reads a property as a string, "" when absent.
func propString(obj *goja.Object, name string) string {
	v := obj.Get(name)
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return ""
	}
	return v.String()
}

// repr renders a value as JSON where it can, for messages.
func repr(v goja.Value, stringify goja.Callable) string {
	if v == nil || goja.IsUndefined(v) {
		return "undefined"
	}
	if stringify != nil {
		if j, err := stringify(goja.Undefined(), v); err == nil && j != nil && !goja.IsUndefined(j) {
			return clip(j.String(), 500)
		}
	}
	if obj, ok := v.(*goja.Object); ok {
		return "[object " + obj.ClassName() + "]"
	}
	return clip(v.String(), 500)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:sandbox.RuneOffset(s, n)] + "…"
}

// Calls run on goroutines kept between calls: goja's frames are deep, and
// a new goroutine's stack would grow, copying itself, on every call.
var runnerJobs = make(chan func())

// runnerIdle is how long a runner goroutine waits for another call.
const runnerIdle = 10 * time.Second

// goRun runs f on an idle runner goroutine, or on a new one.
func goRun(f func()) {
	select {
	case runnerJobs <- f:
	default:
		go runner(f)
	}
}

func runner(f func()) {
	t := time.NewTimer(runnerIdle)
	for {
		f()
		t.Reset(runnerIdle)
		select {
		case f = <-runnerJobs:
		case <-t.C:
			return
		}
	}
}
