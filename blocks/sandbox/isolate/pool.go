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
	"github.com/flowctl/flowctl/blocks/sandbox"
	"github.com/flowctl/flowctl/blocks/sandbox/gobuild"
	"github.com/flowctl/flowctl/blocks/sandbox/jsrun"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/lang/jsonval"
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
	// Unconfined runs python and compiled go blocks on a system where
	// their workers cannot be confined (see Unconfinable), unconfined;
	// without it, such a call fails with an error that says why.
	Unconfined bool

	// noAudit runs python workers without their audit hook (tests).
	noAudit bool
	// noVersions has python workers compare every dict they record after
	// each call, as where dicts' versions cannot be read (tests).
	noVersions bool
	// breakConfinement makes a worker's confinement fail (tests):
	// "landlock" gives a python worker a file that is no Landlock ruleset,
	// "rlimit" a limit that cannot be set; "namespaces" has a flowctl
	// worker that makes its own namespaces ask the kernel for them with a
	// flag it refuses.
	breakConfinement string
	// forkNamespaces has the kernel make a flowctl worker's namespaces as
	// it starts it, where the worker could make them itself (tests of the
	// way taken without cgo).
	forkNamespaces bool
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

// Pool runs go, js and python blocks in worker processes. It is safe for
// concurrent use. A worker runs one call at a time, in the order it is
// sent them; under load the pool sends a worker calls ahead (as many as
// it runs in about 20ms, 8 to 64: depth), so that the worker reads them,
// and its replies are read, several at a time instead of one process
// wake-up per call.
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

	python    pythonState
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
	p := &Pool{opts: o, optsErr: err, said: map[string]bool{}, behind: queueBehind}
	p.noNS.Store(o.NoNamespaces)
	return p
}

// Spawned is how many workers the pool has started.
func (p *Pool) Spawned() int64 { return p.spawned.Load() }

// pcall is a call on its way through the pool.
type pcall struct {
	call     *blocks.Call
	key      string        // of the block's definition
	wire     []byte        // the definition's JSON
	pace     *atomic.Int64 // of the block's calls (depth)
	outs     []byte        // the output fields' JSON
	inputs   []byte        // the inputs' JSON
	step     []byte        // the step's name as JSON
	deadline time.Time     // the caller's, if any
	ev       chan event
	// program is the executable of a compiled go block, or the python
	// program of a python block (pythonProgram), whose calls only its own
	// workers take; "" for code the flowctl worker runs.
	program  string
	execLine int  // of a compiled block: the line of func Execute
	python   bool // a python block's call

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

// Execute runs one call of a go, js or python block in a worker; a go
// block with engine = "compiled" is built first (see package gobuild) and
// runs in a worker of its own program, and a python block in workers of
// its own, which run CPython (see package pyrun). The call's Timeout, when set, starts once a
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
	python := def.Runtime == lang.RuntimePython
	if def.Runtime != lang.RuntimeGo && def.Runtime != lang.RuntimeJS && !python {
		return nil, fmt.Errorf("block %q has runtime %q, which the sandbox does not run", def.Name, def.Runtime)
	}
	if p.optsErr != nil {
		return nil, p.optsErr
	}
	if err := ctx.Err(); err != nil {
		return nil, blocks.Stopped(def.Name, err)
	}
	if python || compiled {
		if err := p.confinable(def, python); err != nil {
			return nil, err
		}
	}
	if python {
		if err := p.python.ready(); err != nil {
			return nil, &sandbox.Error{Block: def.Name, Text: ": " + err.Error(), Range: def.RuntimeRange, Err: err}
		}
	}
	var prog *gobuild.Program
	if compiled {
		var err error
		if prog, err = p.opts.Builder.Program(ctx, def); err != nil {
			return nil, err
		}
	}
	if def.Runtime == lang.RuntimeJS && len(def.Packages) > 0 {
		// The worker is sent the bundle of the block and its packages.
		var err error
		if def, err = jsrun.Bundled(ctx, def); err != nil {
			return nil, err
		}
	}
	we, err := p.wireOf(def)
	if err != nil {
		return nil, fmt.Errorf("block %q cannot be sent to the sandbox: %w", def.Name, err)
	}
	outs, err := p.outputsOf(call.Outputs)
	if err != nil {
		return nil, fmt.Errorf("block %q %s", def.Name, err)
	}
	in, err := jsonval.MarshalAttrs(call.Inputs)
	if err != nil {
		return nil, fmt.Errorf("block %q cannot pass the inputs: %w", def.Name, err)
	}
	step, err := json.Marshal(call.Step)
	if err != nil {
		return nil, err
	}
	c := &pcall{call: call, key: we.key, wire: we.json, pace: we.pace, outs: outs, inputs: in, step: step, ev: make(chan event, 3)}
	if prog != nil {
		// The program is the block: it is sent no definition.
		c.program, c.execLine, c.wire = prog.Path, prog.ExecLine, nil
	}
	if python {
		// Each python block has workers of its own: code that reaches
		// the protocol's pipes sees only calls of its own block. Its
		// calls given a sensitive value have workers apart from its
		// others: what a call leaves in the interpreter that the runner
		// cannot put back (see pyrun's reset.py) never reaches a call
		// whose outputs are not sensitive.
		c.program, c.python = pythonProgram+we.key, true
		if len(call.Sensitive) > 0 {
			c.program += pythonSensitive
		}
		if len(def.Requirements) > 0 {
			if err := p.python.packages(ctx, def, c.program); err != nil {
				return nil, &sandbox.Error{Block: def.Name, Text: ": " + err.Error(), Range: def.RequirementsRange, Err: err}
			}
		}
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
