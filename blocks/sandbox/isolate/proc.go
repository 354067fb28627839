package isolate

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// proc is one worker process, as the pool sees it.
type proc struct {
	cmd    *exec.Cmd
	req    *os.File      // the worker's requests: our write end
	rep    *os.File      // its replies: our read end
	br     *bufio.Reader // on rep
	stderr *headBuffer
	max    int // the longest message accepted
	// program is the compiled block the worker runs; "" for the
	// flowctl worker, which runs any code it is sent.
	program string

	// Guarded by Pool.mu.
	known     map[string]bool // keys of the definitions the worker has been sent
	sent      int             // calls it has been sent
	pending   []*pcall        // calls sent and not answered, in order; the first runs
	sendq     []*pcall        // calls to write to it
	headStart time.Time       // when the first pending call started
	wake      chan struct{}   // tells the writer there is something to send

	mu     sync.Mutex
	killed bool          // by the pool
	waited chan struct{} // closed when the process has been reaped
}

// spawn starts a worker (of a compiled block's program, when given) and
// waits for its hello.
func (p *Pool) spawn(program string) (*proc, error) {
	ns := !p.noNS.Load()
	w, hello, err := p.start(ns, program)
	if err != nil && ns && errors.Is(err, errNotStarted) {
		// The kernel (or its configuration) does not let unprivileged
		// processes make namespaces: go on without them.
		if w2, hello2, err2 := p.start(false, program); err2 == nil {
			p.noNS.Store(true)
			p.notice(namespacesLayer + " (" + firstLine(err.Error()) + ")")
			w, hello, err = w2, hello2, nil
		}
	}
	if err != nil {
		return nil, err
	}
	for _, m := range hello.Missing {
		p.notice(m)
	}
	p.spawned.Add(1)
	return w, nil
}

// start starts one worker process and reads its hello.
func (p *Pool) start(namespaces bool, program string) (*proc, message, error) {
	reqR, reqW, err := workerPipe(true)
	if err != nil {
		return nil, message{}, err
	}
	repR, repW, err := workerPipe(false)
	if err != nil {
		reqR.Close()
		reqW.Close()
		return nil, message{}, err
	}
	// Outputs are capped at half the reply's size: JSON with types, and
	// escapes, can double them.
	l := limits{memory: p.opts.Memory, cpu: p.opts.CPU, maxStack: defaultStack, maxOutput: p.opts.MaxMessage / 2, exec: program}
	p.workerLimits(&l, program)
	cmd := exec.Command(p.opts.Command[0], append(append([]string{}, p.opts.Command[1:]...), l.args()...)...)
	files := []*os.File{reqR, repW} // fds 3 and 4
	if l.python {
		args, extra, err := p.pythonCommand(l, namespaces)
		if err != nil {
			reqR.Close()
			reqW.Close()
			repR.Close()
			repW.Close()
			return nil, message{}, err
		}
		cmd = &exec.Cmd{Path: args[0], Args: args}
		files = append(files, extra...)
	}
	cmd.Env = []string{}
	cmd.Dir = "/"
	maxReply := p.opts.MaxMessage
	if l.exec != "" {
		// A compiled program refuses outputs over maxOutput itself (its
		// reply then holds none); a longer reply is one the block's code
		// wrote itself, and is read no further than this.
		maxReply = l.maxOutput + programReplyRoom
	}
	w := &proc{
		cmd: cmd, req: reqW, rep: repR, br: bufio.NewReaderSize(repR, 64<<10),
		stderr: &headBuffer{max: 8 << 10}, waited: make(chan struct{}), max: maxReply,
		known: map[string]bool{}, wake: make(chan struct{}, 1), program: program,
	}
	cmd.Stderr = w.stderr
	cmd.ExtraFiles = files
	// A python worker makes its own namespaces; so does a flowctl worker
	// built with cgo (selfUnshare), when asked by its environment.
	namespaces = namespaces && !l.python
	self := namespaces && selfUnshare && !p.opts.forkNamespaces
	if self {
		v := "1"
		if p.opts.breakConfinement == "namespaces" {
			v = "break"
		}
		cmd.Env = append(cmd.Env, unshareEnv+"="+v)
	}
	cmd.SysProcAttr = sysProcAttr(namespaces && !self)
	err = cmd.Start()
	reqR.Close()
	repW.Close()
	if err != nil {
		reqW.Close()
		repR.Close()
		return nil, message{}, fmt.Errorf("%w: %w", errNotStarted, err)
	}
	go func() {
		cmd.Wait()
		close(w.waited)
	}()
	t := time.AfterFunc(spawnTimeout, w.kill)
	m, err := w.next()
	stoppedInTime := t.Stop()
	switch {
	case err != nil && !stoppedInTime:
		err = fmt.Errorf("a sandbox worker did not start within %s", spawnTimeout)
	case err != nil:
		err = fmt.Errorf("a sandbox worker stopped while starting: %s", w.death())
	case !m.Hello:
		err = errors.New("a sandbox worker started with an unexpected message")
	}
	if err != nil {
		w.kill()
		w.close()
		return nil, message{}, err
	}
	return w, m, nil
}

// workerPipe is a pipe between the pool and a worker. The worker's end
// (the read end when toWorker) blocks in read or write: the worker has
// one thing to do at a time. The pool's end goes through the runtime's
// poller, so that waiting for a worker holds no thread; it ends when the
// worker exits or is killed.
func workerPipe(toWorker bool) (r, w *os.File, err error) {
	r, w, err = os.Pipe()
	if err != nil {
		return nil, nil, fmt.Errorf("cannot make a pipe for a sandbox worker: %w", err)
	}
	// Fd puts a file in blocking mode.
	if toWorker {
		r.Fd()
	} else {
		w.Fd()
	}
	return r, w, nil
}

// next reads the worker's next message.
func (w *proc) next() (message, error) {
	line, err := readLine(w.br, w.max)
	if err != nil {
		return message{}, err
	}
	if w.program == "" {
		if m, ok := outputsReply(line); ok {
			return m, nil
		}
	}
	var m message
	if err := json.Unmarshal(line, &m); err != nil {
		return message{}, fmt.Errorf("the sandbox worker sent an unreadable message: %w", err)
	}
	return m, nil
}

const (
	// programReplyRoom is what a compiled program's reply may hold beside
	// its outputs: the other fields of its outcome (errors of outputs
	// that could not be encoded, a panic's message).
	programReplyRoom = 1 << 20
	// namespacesLayer names the namespaces among the confinement layers
	// a worker may lack (Pool.notice).
	namespacesLayer = "a user and network namespace"
	// unshareEnv, in a worker's environment, has it make its own
	// namespaces as it starts (selfUnshare); the worker removes it.
	unshareEnv = "FLOWCTL_WORKER_UNSHARE"
)

var (
	// errNotStarted is a worker process that could not be started.
	errNotStarted = errors.New("cannot start a sandbox worker")
	// errTooLong is a message over the size cap.
	errTooLong = errors.New("message too long")
	// errUnexpected is a message out of turn.
	errUnexpected = errors.New("the sandbox worker sent an unexpected message")
)

// readLine reads one line of at most max bytes.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var buf []byte
	for {
		frag, err := br.ReadSlice('\n')
		if len(buf)+len(frag) > max {
			return nil, errTooLong
		}
		if err == nil {
			if buf == nil {
				return frag, nil
			}
			return append(buf, frag...), nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return nil, err
		}
		buf = append(buf, frag...)
	}
}

// outcome waits for the reply to call c, which w runs, and kills w when
// the call ends first: at once when ctx is cancelled, grace after the
// call's deadline (the earlier of ctx's and its Timeout from now: the
// worker stops the code at the deadline itself and says so, just after).
// timedOut reports that it killed w for the deadline; ended is the
// call's context's error as it would be now: Canceled,
// DeadlineExceeded once the deadline passed, or nil. It waits with one
// timer, not a context of the call's own: a for_each of small calls
// makes tens of thousands of them.
func (w *proc) outcome(ctx context.Context, c *pcall, grace time.Duration) (e event, timedOut bool, ended func() error) {
	deadline, has := ctx.Deadline()
	if t := c.call.Timeout; t > 0 {
		if d := time.Now().Add(t); !has || d.Before(deadline) {
			deadline, has = d, true
		}
	}
	ended = func() error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if has && !time.Now().Before(deadline) {
			return context.DeadlineExceeded
		}
		return nil
	}
	var expired <-chan time.Time
	if has {
		t := time.NewTimer(time.Until(deadline) + grace)
		defer t.Stop()
		expired = t.C
	}
	done := ctx.Done()
	for {
		select {
		case e = <-c.ev:
			return e, timedOut, ended
		case <-done:
			done = nil
			if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
				w.kill()
			} // else: its deadline, after which expired comes
		case <-expired:
			expired, timedOut = nil, true
			w.kill()
		}
	}
}

// kill ends the worker and its process group. It is idempotent.
func (w *proc) kill() {
	w.mu.Lock()
	already := w.killed
	w.killed = true
	w.mu.Unlock()
	if already {
		return
	}
	if w.cmd.Process != nil {
		killGroup(w.cmd.Process.Pid)
		w.cmd.Process.Kill()
	}
}

// exited reports whether the worker process has ended.
func (w *proc) exited() bool {
	select {
	case <-w.waited:
		return true
	default:
		return false
	}
}

// close releases the pipes of a worker that has been killed.
func (w *proc) close() {
	w.req.Close()
	w.rep.Close()
}

// death says why a worker stopped, from what its runtime printed and its
// exit status, once it has exited.
func (w *proc) death() string {
	select {
	case <-w.waited:
	case <-time.After(2 * time.Second):
		w.kill()
		<-w.waited
	}
	out := w.stderr.String()
	if strings.HasPrefix(w.program, pythonProgram) {
		if why := pythonDeath(out, signalOf(w.cmd.ProcessState)); why != "" {
			return why
		}
	}
	switch {
	case strings.Contains(out, "out of memory") || strings.Contains(out, "cannot allocate memory") ||
		strings.Contains(out, "errno=12"):
		return "exceeded its memory limit"
	case strings.Contains(out, "stack overflow") || strings.Contains(out, "stack exceeds"):
		return "exceeded its stack limit (the recursion is too deep)"
	}
	st := w.cmd.ProcessState
	switch signalOf(st) {
	case "SIGXCPU":
		return "exceeded its CPU time limit"
	case "SIGKILL":
		w.mu.Lock()
		killed := w.killed
		w.mu.Unlock()
		if !killed {
			return "was stopped: its sandbox worker was killed (CPU time or memory limit)"
		}
	}
	if line := fatalLine(out); line != "" {
		return "crashed its sandbox worker: " + line
	}
	if st != nil {
		return "stopped its sandbox worker unexpectedly (" + st.String() + ")"
	}
	return "stopped its sandbox worker unexpectedly"
}

// fatalLine is the first line of a Go runtime's dying words.
func fatalLine(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "fatal error:") || strings.HasPrefix(l, "panic:") || strings.HasPrefix(l, "runtime:") {
			return strings.TrimSpace(l)
		}
	}
	return firstLine(out)
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// headBuffer keeps the first max bytes written to it: a dying Go runtime
// says why first, then dumps goroutines.
type headBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
	max int
}

func (h *headBuffer) Write(b []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if room := h.max - h.buf.Len(); room > 0 {
		h.buf.Write(b[:min(len(b), room)])
	}
	return len(b), nil
}

func (h *headBuffer) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.buf.String()
}

var _ io.Writer = (*headBuffer)(nil)
