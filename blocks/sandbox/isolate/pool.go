package isolate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/lang"
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
	return o, nil
}

// Pool runs go and js blocks in worker processes. It is safe for
// concurrent use; each worker serves one call at a time.
type Pool struct {
	opts    Options
	optsErr error

	idle   chan *proc    // workers waiting for a call
	tokens chan struct{} // room for one more worker each

	mu     sync.Mutex
	live   map[*proc]bool
	closed bool
	said   map[string]bool
	noNS   atomic.Bool // namespaces failed once: don't try again

	wires     sync.Map // *lang.BlockDef → wireEntry, outputsKey → []byte
	wireCount atomic.Int64
	nextID    atomic.Uint64
	spawned   atomic.Int64
}

var _ blocks.Queued = (*Pool)(nil)

// Queued marks the pool as an executor that waits for workers: the
// runtime gives it a call's timeout in Call.Timeout, and its clock starts
// when a worker takes the call.
func (*Pool) Queued() {}

// New returns a pool; workers are started when calls need them.
func New(opts Options) *Pool {
	o, err := opts.withDefaults()
	p := &Pool{
		opts: o, optsErr: err,
		idle:   make(chan *proc, max(o.Size, 1)),
		tokens: make(chan struct{}, max(o.Size, 1)),
		live:   map[*proc]bool{},
		said:   map[string]bool{},
	}
	for range cap(p.tokens) {
		p.tokens <- struct{}{}
	}
	p.noNS.Store(o.NoNamespaces)
	return p
}

// Spawned is how many workers the pool has started.
func (p *Pool) Spawned() int64 { return p.spawned.Load() }

// Execute runs one call of a go or js block in a worker. The call's
// Timeout, when set, starts once a worker has taken it; until then it
// waits, at most MaxWait, for the run's context or a free worker.
func (p *Pool) Execute(ctx context.Context, call *blocks.Call) (*blocks.Result, error) {
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
	key, wire, err := p.wireOf(def)
	if err != nil {
		return nil, fmt.Errorf("block %q cannot be sent to the sandbox: %w", def.Name, err)
	}
	outs, err := p.outputsOf(call.Outputs)
	if err != nil {
		return nil, fmt.Errorf("block %q %s", def.Name, err)
	}
	w, err := p.acquire(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, blocks.Stopped(def.Name, ctx.Err())
		}
		return nil, fmt.Errorf("block %q could not be run: %w", def.Name, err)
	}
	if call.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, call.Timeout)
		defer cancel()
	}
	if w.known[key] {
		wire = nil
	}
	var timeoutMS int64
	if d, ok := ctx.Deadline(); ok {
		// The worker's deadline falls just after ours, so that a timeout
		// is always seen here first and reported as the step's.
		timeoutMS = int64((time.Until(d)+time.Millisecond-1)/time.Millisecond) + workerDeadlineLag
	}
	id := p.nextID.Add(1)
	req, err := encodeRequest(id, key, wire, outs, call, timeoutMS)
	if err != nil {
		p.release(w)
		return nil, fmt.Errorf("block %q %s", def.Name, err)
	}
	w.known[key] = true
	res, keep, err := w.call(ctx, p, id, req, call)
	if err != nil && ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
		// The code failed as its time ran out (describing what it threw
		// was cut short, say): the deadline is what ended it.
		err = blocks.Stopped(def.Name, ctx.Err())
	}
	w.calls++
	if keep && w.calls < p.opts.MaxCalls && len(w.known) < maxKnownBlocks {
		p.release(w)
	} else {
		p.discard(w)
	}
	return res, err
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

// acquire takes an idle worker, or starts one when there is room, or
// waits for one.
func (p *Pool) acquire(ctx context.Context) (*proc, error) {
	for {
		select {
		case w := <-p.idle:
			if w.exited() {
				p.discard(w) // it died while idle
				continue
			}
			return w, nil
		default:
		}
		break
	}
	start := time.Now()
	wait := time.NewTimer(p.opts.MaxWait)
	defer wait.Stop()
	select {
	case w := <-p.idle:
		return w, nil
	case <-p.tokens:
		w, err := p.spawn()
		if err != nil {
			p.tokens <- struct{}{}
			return nil, err
		}
		return w, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-wait.C:
		return nil, &blocks.WaitError{Waited: time.Since(start), For: fmt.Sprintf("a sandbox worker (all %d were busy)", p.opts.Size)}
	}
}

// release puts a worker back after a call it finished cleanly.
func (p *Pool) release(w *proc) {
	p.mu.Lock()
	closed := p.closed
	p.mu.Unlock()
	if closed {
		p.discard(w)
		return
	}
	p.idle <- w
}

// discard stops a worker and makes room for another.
func (p *Pool) discard(w *proc) {
	w.kill()
	w.close()
	p.mu.Lock()
	delete(p.live, w)
	p.mu.Unlock()
	p.tokens <- struct{}{}
}

// Close stops every worker. Calls running at the time fail.
func (p *Pool) Close() error {
	p.mu.Lock()
	p.closed = true
	live := make([]*proc, 0, len(p.live))
	for w := range p.live {
		live = append(live, w)
	}
	p.mu.Unlock()
	for _, w := range live {
		w.kill()
	}
	for {
		select {
		case w := <-p.idle:
			p.discard(w)
		default:
			return nil
		}
	}
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
