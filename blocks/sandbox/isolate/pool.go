package isolate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/sandbox/gobuild"
	"github.com/flowctl/flowctl/blocks/sandbox/gorun"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/lang/jsonval"
	"github.com/zclconf/go-cty/cty"
)

// Defaults of [Options].
const (
	DefaultMemory     = 512 << 20 // bytes a worker may grow by after start-up
	DefaultCPU        = 5 * time.Minute
	DefaultMaxCalls   = 10000
	DefaultMaxMessage = 32 << 20
	DefaultGrace      = 250 * time.Millisecond
	DefaultMaxWait    = 10 * time.Minute
	defaultStack      = 64 << 20
	// maxCallLog is how much log text one call may send; the code blocks'
	// own caps are lower, so this stops only a misbehaving worker.
	maxCallLog = 1 << 20
	// spawnTimeout bounds a worker's start-up, confinement included.
	spawnTimeout = 10 * time.Second
)

// Options configure a [Pool]. The zero value is ready to use.
type Options struct {
	// Command is the worker's program and the arguments before the
	// worker's own; default: this executable and [WorkerArg].
	Command []string
	// Size is how many workers may run at once; default: the number of
	// CPUs, at least 2.
	Size int
	// Memory is how many bytes a worker's address space may grow by after
	// it has started (RLIMIT_AS), and the Go heap's soft limit.
	Memory int64
	// CPU is the CPU time a worker may use over its life (RLIMIT_CPU); a
	// worker that has used half of it is replaced after its call.
	CPU time.Duration
	// MaxCalls replaces a worker after that many calls.
	MaxCalls int
	// MaxMessage caps a reply (the outputs) in bytes.
	MaxMessage int
	// Grace is how long a worker has, after a call's deadline, to report
	// its own timeout before it is killed.
	Grace time.Duration
	// MaxWait bounds how long a call waits for a free worker when all
	// are busy; the call's own timeout starts once it has one.
	MaxWait time.Duration
	// NoNamespaces spawns workers without a new user and network
	// namespace.
	NoNamespaces bool
	// Notice is told, once each, of confinement layers the workers run
	// without on this system.
	Notice func(string)
	// Builder builds compiled go blocks; default: gobuild.Default().
	Builder *gobuild.Builder
}

func (o Options) withDefaults() (Options, error) {
	if len(o.Command) == 0 {
		exe, err := os.Executable()
		if err != nil {
			return o, fmt.Errorf("cannot find the flowctl executable to start sandbox workers: %w", err)
		}
		o.Command = []string{exe, WorkerArg}
	}
	if o.Size <= 0 {
		o.Size = max(2, runtime.NumCPU())
	}
	if o.Memory <= 0 {
		o.Memory = DefaultMemory
	}
	if o.CPU <= 0 {
		o.CPU = DefaultCPU
	}
	if o.MaxCalls <= 0 {
		o.MaxCalls = DefaultMaxCalls
	}
	if o.MaxMessage <= 0 {
		o.MaxMessage = DefaultMaxMessage
	}
	if o.Grace <= 0 {
		o.Grace = DefaultGrace
	}
	if o.MaxWait <= 0 {
		o.MaxWait = DefaultMaxWait
	}
	if o.Builder == nil {
		o.Builder = gobuild.Default()
	}
	return o, nil
}

// Pool runs go and js blocks in worker processes. It is safe for
// concurrent use. A worker runs one call at a time, in the order it is
// sent them; under load the pool sends a worker a few calls ahead
// (pipelineDepth), so that the worker reads them, and its replies are
// read, several at a time instead of one process wake-up per call.
type Pool struct {
	opts    Options
	optsErr error

	mu       sync.Mutex
	workers  []*proc  // live workers that may be sent calls
	starting int      // workers being started
	waiting  []*pcall // calls no worker has taken yet, oldest first
	closed   bool
	behind   time.Duration // queueBehind; tests change it
	said     map[string]bool
	noNS     atomic.Bool // namespaces failed once: don't try again

	wires     sync.Map // *lang.BlockDef → wireEntry, outputsKey → []byte
	wireCount atomic.Int64
	nextID    atomic.Uint64
	spawned   atomic.Int64
}

// pipelineDepth is how many calls a worker may be sent at once: the one
// it runs and those queued behind it.
const pipelineDepth = 8

// queueBehind is how recently a worker must have started its current
// call to be sent more: a call is not queued behind one that is slow.
const queueBehind = 20 * time.Millisecond

var _ blocks.Queued = (*Pool)(nil)

// Queued marks the pool as an executor that waits for workers: the
// runtime gives it a call's timeout in Call.Timeout, and its clock starts
// when a worker takes the call.
func (*Pool) Queued() {}

// New returns a pool; workers are started when calls need them.
func New(opts Options) *Pool {
	o, err := opts.withDefaults()
	p := &Pool{opts: o, optsErr: err, said: map[string]bool{}, behind: queueBehind}
	p.noNS.Store(o.NoNamespaces)
	return p
}

// Spawned is how many workers the pool has started.
func (p *Pool) Spawned() int64 { return p.spawned.Load() }

// pcall is a call on its way through the pool.
type pcall struct {
	call     *blocks.Call
	key      string    // of the block's definition
	wire     []byte    // the definition's JSON
	outs     []byte    // the output fields' JSON
	inputs   []byte    // the inputs' JSON
	step     []byte    // the step's name as JSON
	deadline time.Time // the caller's, if any
	ev       chan event
	// program is the executable of a compiled go block, whose calls only
	// its own workers take; "" for code the flowctl worker runs.
	program  string
	execLine int // of a compiled block: the line of func Execute

	// Guarded by Pool.mu.
	id        uint64
	w         *proc // the worker it was sent to
	withDef   bool  // the request carries the definition
	started   bool  // it is the call its worker runs
	abandoned bool  // its caller has gone

	logMu   sync.Mutex // held while a log line is passed on
	logDone bool       // the caller has gone: no more log lines
	logged  int
}

// event is what the pool tells a call's caller.
type event struct {
	kind eventKind
	msg  *message // evDone
	err  error    // evFailed
}

type eventKind int

const (
	evSpawn   eventKind = iota // start a worker for the call
	evStarted                  // a worker runs the call
	evDone                     // its reply
	evFailed                   // the worker died, or the pool closed
)

// errClosed fails the calls of a pool that is closing.
var errClosed = errors.New("the sandbox is closed")

// Execute runs one call of a go or js block in a worker; a go block with
// engine = "compiled" is built first (see package gobuild) and runs in a
// worker of its own program. The call's Timeout, when set, starts once a
// worker runs it; until then it waits, at most MaxWait, for the run's
// context or a free worker.
func (p *Pool) Execute(ctx context.Context, call *blocks.Call) (*blocks.Result, error) {
	return p.execute(ctx, call, call.Block != nil && call.Block.Def.Compiled(""))
}

// execute runs a call, compiled or not.
func (p *Pool) execute(ctx context.Context, call *blocks.Call, compiled bool) (*blocks.Result, error) {
	if call.Block == nil || call.Block.Def == nil {
		return nil, errors.New("the sandbox was asked to run a block without a definition")
	}
	def := call.Block.Def
	if def.Runtime != lang.RuntimeGo && def.Runtime != lang.RuntimeJS {
		return nil, fmt.Errorf("block %q has runtime %q, which the sandbox does not run", def.Name, def.Runtime)
	}
	if p.optsErr != nil {
		return nil, p.optsErr
	}
	if err := ctx.Err(); err != nil {
		return nil, blocks.Stopped(def.Name, err)
	}
	var prog *gobuild.Program
	if compiled {
		var err error
		if prog, err = p.opts.Builder.Program(ctx, def); err != nil {
			return nil, err
		}
	}
	key, wire, err := p.wireOf(def)
	if err != nil {
		return nil, fmt.Errorf("block %q cannot be sent to the sandbox: %w", def.Name, err)
	}
	outs, err := p.outputsOf(call.Outputs)
	if err != nil {
		return nil, fmt.Errorf("block %q %s", def.Name, err)
	}
	in, err := jsonval.Marshal(cty.ObjectVal(call.Inputs))
	if err != nil {
		return nil, fmt.Errorf("block %q cannot pass the inputs: %w", def.Name, err)
	}
	step, err := json.Marshal(call.Step)
	if err != nil {
		return nil, err
	}
	c := &pcall{call: call, key: key, wire: wire, outs: outs, inputs: in, step: step, ev: make(chan event, 3)}
	if prog != nil {
		// The program is the block: it is sent no definition.
		c.program, c.execLine, c.wire = prog.Path, prog.ExecLine, nil
	}
	c.deadline, _ = ctx.Deadline()
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, fmt.Errorf("block %q could not be run: %w", def.Name, errClosed)
	}
	p.waiting = append(p.waiting, c)
	p.dispatchLocked()
	p.mu.Unlock()
	res, err := p.await(ctx, c)
	if err != nil && ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
		// The code failed as its time ran out (describing what it threw
		// was cut short, say): the deadline is what ended it.
		err = blocks.Stopped(def.Name, ctx.Err())
	}
	return res, err
}

// await waits until a worker runs the call, starting one when the pool
// says so, and then for its outcome.
func (p *Pool) await(ctx context.Context, c *pcall) (*blocks.Result, error) {
	name := c.call.Block.Name
	var wait *time.Timer
	start := time.Now()
	for {
		var e event
		select {
		case e = <-c.ev:
		default:
			if wait == nil {
				wait = time.NewTimer(p.opts.MaxWait)
				defer wait.Stop()
			}
			select {
			case e = <-c.ev:
			case <-ctx.Done():
				p.abandon(c)
				return nil, blocks.Stopped(name, ctx.Err())
			case <-wait.C:
				p.abandon(c)
				return nil, &blocks.WaitError{Waited: time.Since(start), For: fmt.Sprintf("a sandbox worker (all %d were busy)", p.opts.Size)}
			}
		}
		switch e.kind {
		case evSpawn:
			if err := p.spawnFor(c); err != nil {
				return nil, fmt.Errorf("block %q could not be run: %w", name, err)
			}
		case evStarted:
			return p.running(ctx, c)
		default: // the pool closed before the call started
			return nil, fmt.Errorf("block %q could not be run: %w", name, e.err)
		}
	}
}

// running waits for the outcome of a call its worker runs, and stops the
// worker when the call's time is up or its context ends.
func (p *Pool) running(ctx context.Context, c *pcall) (*blocks.Result, error) {
	if c.call.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.call.Timeout)
		defer cancel()
	}
	w := c.w
	dog := w.watch(ctx, p.opts.Grace)
	e := <-c.ev
	timedOut := dog.stop()
	name := c.call.Block.Name
	if e.kind == evFailed {
		switch {
		case timedOut:
			return nil, fmt.Errorf("block %q exceeded its timeout; its sandbox worker was stopped: %w", name, context.DeadlineExceeded)
		case ctx.Err() != nil:
			return nil, blocks.Stopped(name, ctx.Err())
		case errors.Is(e.err, errTooLong):
			return nil, fmt.Errorf("block %q returned more than %d bytes", name, p.opts.MaxMessage)
		case errors.Is(e.err, errUnexpected), errors.Is(e.err, errClosed):
			return nil, fmt.Errorf("block %q: %w", name, e.err)
		}
		return nil, fmt.Errorf("block %q %s", name, w.death())
	}
	m := e.msg
	if c.program != "" {
		return compiledResult(c, m, p.opts.MaxMessage/2)
	}
	if m.Error != "" {
		if m.Timeout || errors.Is(ctx.Err(), context.DeadlineExceeded) {
			// The worker stopped the code at its deadline, just after ours.
			return nil, fmt.Errorf("%s: %w", m.Error, context.DeadlineExceeded)
		}
		return nil, errors.New(m.Error)
	}
	outs, err := decodeOutputs(m.Outputs)
	if err != nil {
		return nil, fmt.Errorf("block %q %s", name, err)
	}
	return &blocks.Result{Outputs: outs}, nil
}

// compiledResult turns the reply of a compiled block's program into the
// result or error the interpreted engine would give.
func compiledResult(c *pcall, m *message, maxOutput int) (*blocks.Result, error) {
	def := c.call.Block.Def
	switch {
	case m.Timeout:
		return nil, gorun.Stopped(def, c.execLine, context.DeadlineExceeded)
	case m.Outcome == nil:
		msg := m.Error
		if msg == "" {
			msg = "its program replied with no outcome"
		}
		return nil, fmt.Errorf("block %q: %s", def.Name, msg)
	}
	return gorun.Finish(def, c.execLine, *m.Outcome, c.call.Outputs, maxOutput)
}

// abandon notes that a call's caller has gone. A call that waits in the
// pool is dropped; one its worker runs (or will, when it reaches it) is
// stopped with the worker, as nobody waits for it.
func (p *Pool) abandon(c *pcall) {
	c.logMu.Lock()
	c.logDone = true
	c.logMu.Unlock()
	p.mu.Lock()
	defer p.mu.Unlock()
	c.abandoned = true
	if i := slices.Index(p.waiting, c); i >= 0 {
		p.waiting = slices.Delete(p.waiting, i, i+1)
		return
	}
	if c.started {
		c.w.kill()
	}
}

// dispatchLocked gives waiting calls to workers: an idle worker first,
// else a new one while there is room, else a busy worker whose call
// started recently and which has room in its pipeline. Calls that find
// none wait for a worker's next reply.
func (p *Pool) dispatchLocked() {
	for len(p.waiting) > 0 && !p.closed {
		c := p.waiting[0]
		w := p.pickLocked(c.program, false)
		if w == nil && len(p.workers)+p.starting >= p.opts.Size {
			// Make room: an idle worker of another program goes.
			for _, o := range p.workers {
				if o.program != c.program && len(o.pending) == 0 {
					p.retireLocked(o)
					break
				}
			}
		}
		if w == nil && len(p.workers)+p.starting < p.opts.Size {
			p.popWaitingLocked()
			p.starting++
			c.ev <- event{kind: evSpawn}
			continue
		}
		if w == nil {
			w = p.pickLocked(c.program, true)
		}
		if w == nil {
			return
		}
		p.popWaitingLocked()
		p.assignLocked(w, c)
	}
}

func (p *Pool) popWaitingLocked() {
	p.waiting[0] = nil
	p.waiting = p.waiting[1:]
	if len(p.waiting) == 0 {
		p.waiting = nil // let the array go
	}
}

// pickLocked returns an idle worker of program, or with busy the least
// loaded one that may be sent another call, or nil.
func (p *Pool) pickLocked(program string, busy bool) *proc {
	var best *proc
	var now time.Time
	for _, w := range p.workers {
		if w.program != program || !p.acceptsLocked(w) || w.exited() {
			continue
		}
		n := len(w.pending)
		if n == 0 {
			return w
		}
		if !busy || n >= pipelineDepth || (best != nil && n >= len(best.pending)) {
			continue
		}
		if now.IsZero() {
			now = time.Now()
		}
		if now.Sub(w.headStart) < p.behind {
			best = w
		}
	}
	return best
}

// acceptsLocked reports whether a worker may be sent another call: it has
// not been sent MaxCalls, nor too many definitions.
func (p *Pool) acceptsLocked(w *proc) bool {
	return w.sent < p.opts.MaxCalls && len(w.known) < maxKnownBlocks
}

// assignLocked sends a call to a worker.
func (p *Pool) assignLocked(w *proc, c *pcall) {
	c.id = p.nextID.Add(1)
	c.w = w
	c.withDef = !w.known[c.key]
	w.known[c.key] = true
	w.sent++
	w.pending = append(w.pending, c)
	w.sendq = append(w.sendq, c)
	select {
	case w.wake <- struct{}{}:
	default:
	}
	if len(w.pending) == 1 {
		p.startLocked(w, c)
	}
}

// startLocked notes that a worker runs a call: the first it was sent, or
// the next once it has replied to the one before.
func (p *Pool) startLocked(w *proc, c *pcall) {
	w.headStart = time.Now()
	c.started = true
	if c.abandoned {
		w.kill() // nobody waits for it, and it may never end
		return
	}
	c.ev <- event{kind: evStarted}
}

// spawnFor starts a worker for a call the pool chose to start one for,
// and sends it the call.
func (p *Pool) spawnFor(c *pcall) error {
	w, err := p.spawn(c.program)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.starting--
	if err == nil && p.closed {
		w.kill()
		w.close()
		err = errClosed
	}
	if err != nil {
		p.dispatchLocked() // there is room for another attempt
		return err
	}
	p.workers = append(p.workers, w)
	go p.write(w)
	go p.read(w)
	p.assignLocked(w, c)
	p.dispatchLocked()
	return nil
}

// retireLocked takes a worker out of service and stops it; the calls it
// was sent and had not started are given to others.
func (p *Pool) retireLocked(w *proc) {
	if i := slices.Index(p.workers, w); i >= 0 {
		p.workers = slices.Delete(p.workers, i, i+1)
	}
	w.kill()
}

// lost handles a worker whose replies have ended (it exited, was killed,
// or broke the protocol): the call it ran fails with err, and those
// queued behind it go to other workers.
func (p *Pool) lost(w *proc, err error) {
	w.kill()
	p.mu.Lock()
	p.retireLocked(w)
	pending := w.pending
	w.pending, w.sendq = nil, nil
	close(w.wake)
	var requeue []*pcall
	for i, c := range pending {
		switch {
		case i == 0 && c.started:
			c.ev <- event{kind: evFailed, err: err}
		case c.abandoned:
		case p.closed:
			c.ev <- event{kind: evFailed, err: errClosed}
		default:
			c.started, c.w = false, nil
			requeue = append(requeue, c)
		}
	}
	p.waiting = append(requeue, p.waiting...)
	p.dispatchLocked()
	p.mu.Unlock()
	<-w.waited
	w.close()
}

// read reads a worker's messages and passes each to its call.
func (p *Pool) read(w *proc) {
	for {
		m, err := w.next()
		if err != nil {
			p.lost(w, err)
			return
		}
		p.mu.Lock()
		var c *pcall
		if len(w.pending) > 0 {
			c = w.pending[0]
		}
		if c == nil || !c.started || m.Hello || m.ID != c.id || (m.Log == nil && !m.Done) {
			p.mu.Unlock()
			p.lost(w, errUnexpected)
			return
		}
		if m.Log != nil && !m.Done {
			p.mu.Unlock()
			c.passLog(*m.Log)
			continue
		}
		w.pending[0] = nil
		w.pending = w.pending[1:]
		c.ev <- event{kind: evDone, msg: &m}
		switch {
		case m.Recycle:
			// The worker exits after this reply; the calls behind it go
			// to others when its replies end.
			p.retireLocked(w)
		case len(w.pending) > 0:
			p.startLocked(w, w.pending[0])
		case !p.acceptsLocked(w):
			p.retireLocked(w)
		}
		p.dispatchLocked()
		p.mu.Unlock()
	}
}

// passLog passes a log line of the call to its caller's log, redacted,
// up to maxCallLog bytes.
func (c *pcall) passLog(line string) {
	c.logMu.Lock()
	defer c.logMu.Unlock()
	if c.logDone || c.call.Log == nil {
		return
	}
	if c.logged += len(line) + 1; c.logged > maxCallLog {
		return
	}
	if c.call.Redact != nil {
		line = c.call.Redact(line)
	}
	c.call.Log(line)
}

// write sends a worker the calls it is given, several in one write when
// they come faster than it takes them.
func (p *Pool) write(w *proc) {
	var buf []byte
	for range w.wake {
		p.mu.Lock()
		batch := w.sendq
		w.sendq = nil
		p.mu.Unlock()
		buf = buf[:0]
		for _, c := range batch {
			var def []byte
			if c.withDef {
				def = c.wire
			}
			buf = appendRequest(buf, c.id, c.key, def, c.outs, c.step, c.inputs, timeoutMS(c))
		}
		if len(buf) == 0 {
			continue
		}
		if _, err := w.req.Write(buf); err != nil {
			w.kill() // its replies end, and lost says why
			return
		}
		if cap(buf) > 1<<20 {
			buf = nil
		}
	}
}

// timeoutMS is the time in milliseconds a worker gives a call from when
// it starts it: the call's Timeout, or what is left of its caller's
// deadline, whichever is shorter, plus workerDeadlineLag; 0 for no limit.
func timeoutMS(c *pcall) int64 {
	d := c.call.Timeout
	if !c.deadline.IsZero() {
		if left := time.Until(c.deadline); d <= 0 || left < d {
			d = max(left, time.Millisecond)
		}
	}
	if d <= 0 {
		return 0
	}
	// The worker's deadline falls just after ours, so that a timeout is
	// seen here first and reported as the step's.
	return int64((d+time.Millisecond-1)/time.Millisecond) + workerDeadlineLag
}

// workerDeadlineLag is how many milliseconds after the call's deadline the
// worker's falls.
const workerDeadlineLag = 5

// maxKnownBlocks bounds the definitions one worker is sent (watch mode
// sends a new one per edit); a worker that has seen that many is replaced.
const maxKnownBlocks = 256

// maxWires bounds the definitions whose wire form the pool keeps.
const maxWires = 1024

// wireEntry is a definition's wire form: its key and JSON.
type wireEntry struct {
	key  string
	json []byte
}

// wireOf returns the key and JSON of a definition, made once.
func (p *Pool) wireOf(def *lang.BlockDef) (string, []byte, error) {
	if e, ok := p.wires.Load(def); ok {
		return e.(wireEntry).key, e.(wireEntry).json, nil
	}
	p.forgetEarlier()
	wire := toWire(def)
	b, err := json.Marshal(wire)
	if err != nil {
		return "", nil, err
	}
	e := wireEntry{key: blockKey(wire), json: b}
	p.wires.Store(def, e)
	return e.key, e.json, nil
}

// outputsOf returns the JSON of a call's output fields, made once per
// field list.
func (p *Pool) outputsOf(fields []*lang.Field) ([]byte, error) {
	if len(fields) == 0 {
		return nil, nil
	}
	k := outputsKey{first: fields[0], n: len(fields)}
	if b, ok := p.wires.Load(k); ok {
		return b.([]byte), nil
	}
	p.forgetEarlier()
	b, err := outputsJSON(fields)
	if err != nil {
		return nil, err
	}
	p.wires.Store(k, b)
	return b, nil
}

// outputsKey identifies a list of output fields (a step's, or a block's).
type outputsKey struct {
	first *lang.Field
	n     int
}

// forgetEarlier drops what the pool has made of the definitions of
// earlier compilations (watch mode) once it holds too many.
func (p *Pool) forgetEarlier() {
	if p.wireCount.Add(1) > maxWires {
		p.wires.Clear()
		p.wireCount.Store(1)
	}
}

// Close stops every worker. Calls running at the time fail, and so do
// those waiting for a worker.
func (p *Pool) Close() error {
	p.mu.Lock()
	p.closed = true
	workers := slices.Clone(p.workers)
	for _, c := range p.waiting {
		c.ev <- event{kind: evFailed, err: errClosed}
	}
	p.waiting = nil
	p.mu.Unlock()
	for _, w := range workers {
		w.kill()
	}
	return nil
}

// notice reports a missing confinement layer once.
func (p *Pool) notice(layer string) {
	p.mu.Lock()
	said := p.said[layer]
	p.said[layer] = true
	p.mu.Unlock()
	if !said && p.opts.Notice != nil {
		p.opts.Notice("code blocks run without " + layer)
	}
}
