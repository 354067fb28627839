package isolate

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/flowctl/flowctl/blocks/sandbox/deps"
	"io"
	"os"
	"sync"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/sandbox/gobuild"
	"github.com/flowctl/flowctl/blocks/sandbox/gorun"
	"github.com/flowctl/flowctl/blocks/sandbox/jsrun"
	"github.com/flowctl/flowctl/lang"

	_ "time/tzdata" // time zones without reading the file system
)

// limits are a worker's resource limits, passed on its command line.
type limits struct {
	memory    int64         // bytes the worker may grow by after start-up
	cpu       time.Duration // CPU time over the worker's life
	maxStack  int           // bytes of one goroutine's stack
	maxOutput int           // bytes of a call's outputs as JSON
	// exec is the program of a compiled go block: the worker confines
	// itself and becomes that program, which speaks the protocol.
	exec string
	// python: the worker is a python block's, the interpreter started
	// directly with the runner of package pyrun (which confines itself),
	// not a sandbox worker.
	python bool
	// noConfine: the worker applies no confinement (the pool runs
	// python and compiled go blocks unconfined, --unconfined).
	noConfine bool
	// noAudit: a python worker runs without its audit hook (tests of the
	// operating system's confinement alone).
	noAudit bool
	// packages is the environment of a python block's requirements, nil
	// for none.
	packages *deps.Env
}

func (l limits) args() []string {
	return []string{
		fmt.Sprintf("-memory=%d", l.memory),
		fmt.Sprintf("-cpu=%s", l.cpu),
		fmt.Sprintf("-stack=%d", l.maxStack),
		fmt.Sprintf("-output=%d", l.maxOutput),
		"-exec=" + l.exec,
		fmt.Sprintf("-noconfine=%t", l.noConfine),
	}
}

// Main runs a sandbox worker: args are the arguments after [WorkerArg]. It
// returns the process's exit code. A worker ends when its request pipe is
// closed.
func Main(args []string) int {
	fs := flag.NewFlagSet(WorkerArg, flag.ContinueOnError)
	var l limits
	fs.Int64Var(&l.memory, "memory", DefaultMemory, "")
	fs.DurationVar(&l.cpu, "cpu", DefaultCPU, "")
	fs.IntVar(&l.maxStack, "stack", defaultStack, "")
	fs.IntVar(&l.maxOutput, "output", DefaultMaxMessage/2, "")
	fs.StringVar(&l.exec, "exec", "", "")
	fs.BoolVar(&l.noConfine, "noconfine", false, "")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if !isPipe(requestFD) || !isPipe(replyFD) {
		fmt.Fprintln(os.Stderr, "flowctl: the sandbox worker mode is for flowctl's own use")
		return 2
	}
	if l.exec != "" {
		return becomeProgram(l)
	}
	in := os.NewFile(requestFD, "requests")
	out := os.NewFile(replyFD, "replies")
	goEx, jsEx := gorun.NewExecutor(), jsrun.NewExecutor()
	goEx.MaxOutput, jsEx.MaxOutput = l.maxOutput, l.maxOutput
	w := &server{
		out:    bufio.NewWriterSize(out, 64<<10),
		goEx:   goEx,
		jsEx:   jsEx,
		limit:  l,
		blocks: map[string]*blocks.Block{},
		fields: map[string][]*lang.Field{},
	}
	missing := unconfined
	if !l.noConfine {
		missing = append(namespacesMissing(), confine(l)...)
	}
	if err := w.send(message{Hello: true, Missing: missing}); err != nil {
		return 1
	}
	if err := w.serve(bufio.NewReaderSize(in, 64<<10)); err != nil && !errors.Is(err, io.EOF) {
		fmt.Fprintln(os.Stderr, "flowctl sandbox worker:", err)
		return 1
	}
	return 0
}

// server is the worker's side of the protocol.
type server struct {
	mu     sync.Mutex // guards out: log lines come from the call's goroutine
	out    *bufio.Writer
	blocks map[string]*blocks.Block // by key, as sent once
	fields map[string][]*lang.Field // output fields, by their JSON
	goEx   *gorun.Executor
	jsEx   *jsrun.Executor
	limit  limits
	// cpuChecked is when the worker last read the CPU time it has used.
	cpuChecked time.Time
}

// cpuCheckEvery is how often, at most, a worker reads the CPU time it has
// used (a system call), to retire itself at half its limit.
const cpuCheckEvery = 10 * time.Millisecond

func (s *server) send(m message) error {
	b, err := encodeReply(m)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.out.Write(b)
	return s.out.Flush()
}

// serve answers requests until the request pipe is closed or a reply
// asks for the worker to be replaced.
func (s *server) serve(in *bufio.Reader) error {
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			return err
		}
		req, ok := knownRequest(line)
		if !ok {
			req = request{}
			if err := json.Unmarshal(line, &req); err != nil {
				return fmt.Errorf("unreadable request: %w", err)
			}
		}
		reply := s.handle(&req)
		if now := time.Now(); !reply.Recycle && now.Sub(s.cpuChecked) >= cpuCheckEvery {
			s.cpuChecked = now
			reply.Recycle = cpuUsed() > s.limit.cpu/2
		}
		if err := s.send(reply); err != nil {
			return err
		}
		if reply.Recycle {
			return nil
		}
	}
}

// outputFields decodes a request's output fields, once per distinct JSON.
func (s *server) outputFields(raw []byte) ([]*lang.Field, error) {
	if f, ok := s.fields[string(raw)]; ok {
		return f, nil
	}
	f, err := decodeOutputFields(raw)
	if err != nil {
		return nil, err
	}
	if len(s.fields) >= 1024 {
		clear(s.fields)
	}
	s.fields[string(raw)] = f
	return f, nil
}

// handle runs one request and returns its reply.
func (s *server) handle(req *request) message {
	reply := message{ID: req.ID, Done: true}
	b := s.blocks[req.BlockKey]
	if req.Block != nil {
		b = fromWire(req.Block)
		s.blocks[req.BlockKey] = b
	}
	if b == nil {
		reply.Error = "the sandbox worker was sent an unknown block"
		reply.Recycle = true
		return reply
	}
	outputs, err := s.outputFields(req.Outputs)
	if err != nil {
		reply.Error = fmt.Sprintf("block %q: %s", b.Name, err)
		return reply
	}
	call, err := decodeRequest(req, b, outputs)
	if err != nil {
		reply.Error = fmt.Sprintf("block %q: %s", b.Name, err)
		return reply
	}
	call.Log = func(line string) { _ = s.send(message{ID: req.ID, Log: &line}) }
	var deadline time.Time
	if req.TimeoutMS > 0 {
		deadline = time.Now().Add(time.Duration(req.TimeoutMS) * time.Millisecond)
	}
	var res *blocks.Result
	switch call.Block.Runtime {
	case lang.RuntimeGo:
		ctx, cancel := context.Background(), context.CancelFunc(func() {})
		if !deadline.IsZero() {
			ctx, cancel = context.WithDeadline(ctx, deadline)
		}
		res, err = s.goEx.Execute(ctx, call)
		cancel()
	case lang.RuntimeJS:
		// On this goroutine, interrupted at the deadline: the pool kills
		// a worker whose call has not ended shortly after it, so a call
		// needs no goroutine (nor context) of its own to be given up on.
		res, err = s.jsEx.ExecuteUntil(deadline, call, req.Inputs)
	default:
		reply.Error = fmt.Sprintf("block %q has runtime %q, which the sandbox does not run", call.Block.Name, call.Block.Runtime)
		return reply
	}
	if !deadline.IsZero() && !time.Now().Before(deadline) {
		reply.Timeout = true
		// Code may still be running on another goroutine (a built-in that
		// could not be interrupted): this worker is done.
		reply.Recycle = true
	}
	if err != nil {
		reply.Error = err.Error()
		return reply
	}
	outs, err := encodeOutputs(res.Outputs)
	if err != nil {
		reply.Error = fmt.Sprintf("block %q: %s", call.Block.Name, err)
		return reply
	}
	reply.Outputs = outs
	return reply
}

// namespacesMissing lists the namespaces when the worker was to make its
// own and could not (unshareMissing).
func namespacesMissing() []string {
	if m := unshareMissing(); m != "" {
		return []string{m}
	}
	return nil
}

// becomeProgram confines the worker and executes a compiled block's
// program in its place, with the same protocol pipes; it returns only when
// that fails.
func becomeProgram(l limits) int {
	missing, statusFD, filter := unconfined, -1, ""
	if !l.noConfine {
		missing, statusFD, filter = confineForExec(l, l.exec)
		missing = append(namespacesMissing(), missing...)
	}
	said, _ := json.Marshal(missing)
	args := []string{l.exec, gobuild.ProgramArg,
		fmt.Sprintf("-memory=%d", l.memory),
		fmt.Sprintf("-cpu=%s", l.cpu),
		fmt.Sprintf("-stack=%d", l.maxStack),
		fmt.Sprintf("-output=%d", l.maxOutput),
		fmt.Sprintf("-statusfd=%d", statusFD),
		"-seccomp=" + filter,
		fmt.Sprintf("-seccomp-nr=%d", seccompNr),
		"-missing=" + string(said),
	}
	err := execProgram(l.exec, args)
	fmt.Fprintln(os.Stderr, "flowctl sandbox worker: cannot run the compiled block's program:", err)
	return 1
}
