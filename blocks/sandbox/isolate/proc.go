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
	"syscall"
	"time"

	"github.com/flowctl/flowctl/blocks"
)

// proc is one worker process, as the pool sees it.
type proc struct {
	cmd    *exec.Cmd
	req    *os.File     // the worker's requests: our write end
	msgs   chan message // from the reader goroutine; closed when the worker's replies end
	gone   chan struct{}
	stderr *headBuffer
	calls  int

	mu      sync.Mutex
	readErr error // why msgs was closed
	killed  bool  // by the pool
	waited  chan struct{}
}

// spawn starts a worker and waits for its hello.
func (p *Pool) spawn() (*proc, error) {
	ns := !p.noNS.Load()
	w, hello, err := p.start(ns)
	if err != nil && ns {
		// The kernel (or its configuration) does not let unprivileged
		// processes make namespaces: go on without them.
		if w2, hello2, err2 := p.start(false); err2 == nil {
			p.noNS.Store(true)
			p.notice("a user and network namespace (" + firstLine(err.Error()) + ")")
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
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		w.kill()
		return nil, errors.New("the sandbox is closed")
	}
	p.live[w] = true
	p.mu.Unlock()
	return w, nil
}

// start starts one worker process and reads its hello.
func (p *Pool) start(namespaces bool) (*proc, message, error) {
	reqR, reqW, err := os.Pipe()
	if err != nil {
		return nil, message{}, err
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		reqR.Close()
		reqW.Close()
		return nil, message{}, err
	}
	l := limits{memory: p.opts.Memory, cpu: p.opts.CPU, maxStack: defaultStack}
	args := append(append([]string{}, p.opts.Command[1:]...), l.args()...)
	cmd := exec.Command(p.opts.Command[0], args...)
	cmd.Env = []string{}
	cmd.Dir = "/"
	w := &proc{
		cmd: cmd, req: reqW, msgs: make(chan message, 16), gone: make(chan struct{}),
		stderr: &headBuffer{max: 8 << 10}, waited: make(chan struct{}),
	}
	cmd.Stderr = w.stderr
	cmd.ExtraFiles = []*os.File{reqR, repW} // fds 3 and 4
	cmd.SysProcAttr = sysProcAttr(namespaces)
	err = cmd.Start()
	reqR.Close()
	repW.Close()
	if err != nil {
		reqW.Close()
		repR.Close()
		return nil, message{}, fmt.Errorf("cannot start a sandbox worker: %w", err)
	}
	go func() {
		cmd.Wait()
		close(w.waited)
	}()
	go w.read(repR, p.opts.MaxMessage)
	t := time.NewTimer(spawnTimeout)
	defer t.Stop()
	select {
	case m, ok := <-w.msgs:
		if ok && m.Hello {
			return w, m, nil
		}
		w.kill()
		if !ok {
			return nil, message{}, fmt.Errorf("a sandbox worker stopped while starting: %s", w.death())
		}
		return nil, message{}, errors.New("a sandbox worker started with an unexpected message")
	case <-t.C:
		w.kill()
		return nil, message{}, fmt.Errorf("a sandbox worker did not start within %s", spawnTimeout)
	}
}

// read turns the worker's reply lines into messages until they end.
func (w *proc) read(r *os.File, maxMessage int) {
	defer r.Close()
	defer close(w.msgs)
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := readLine(br, maxMessage)
		if err != nil {
			w.setReadErr(err)
			return
		}
		var m message
		if err := json.Unmarshal(line, &m); err != nil {
			w.setReadErr(fmt.Errorf("the sandbox worker sent an unreadable message: %w", err))
			return
		}
		select {
		case w.msgs <- m:
		case <-w.gone:
			return
		}
	}
}

func (w *proc) setReadErr(err error) {
	w.mu.Lock()
	w.readErr = err
	w.mu.Unlock()
}

// errTooLong is a message over the size cap.
var errTooLong = errors.New("message too long")

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

// call sends a request and waits for its reply. keep is false when the
// worker must not serve another call.
func (w *proc) call(ctx context.Context, p *Pool, req []byte, call *blocks.Call) (res *blocks.Result, keep bool, err error) {
	name := call.Block.Name
	if d, ok := ctx.Deadline(); ok {
		w.req.SetWriteDeadline(d.Add(p.opts.Grace))
	} else {
		w.req.SetWriteDeadline(time.Time{})
	}
	if _, err := w.req.Write(req); err != nil {
		if ctx.Err() != nil {
			return nil, false, stopped(name, ctx.Err())
		}
		return nil, false, fmt.Errorf("block %q could not be sent to its sandbox worker: %s", name, w.death())
	}
	var grace <-chan time.Time
	done := ctx.Done()
	logged := 0
	for {
		select {
		case m, ok := <-w.msgs:
			if !ok {
				w.mu.Lock()
				rerr := w.readErr
				w.mu.Unlock()
				if errors.Is(rerr, errTooLong) {
					return nil, false, fmt.Errorf("block %q returned more than %d bytes", name, p.opts.MaxMessage)
				}
				if ctx.Err() != nil {
					return nil, false, stopped(name, ctx.Err())
				}
				return nil, false, fmt.Errorf("block %q %s", name, w.death())
			}
			if m.Log != "" && !m.Done {
				if logged += len(m.Log); logged <= maxCallLog && call.Log != nil {
					line := m.Log
					if call.Redact != nil {
						line = call.Redact(line)
					}
					call.Log(line)
				}
				continue
			}
			if !m.Done || m.Hello {
				return nil, false, fmt.Errorf("block %q: the sandbox worker sent an unexpected message", name)
			}
			if m.Error != "" {
				return nil, !m.Recycle, errors.New(m.Error)
			}
			outs, err := decodeOutputs(m.Outputs)
			if err != nil {
				return nil, false, fmt.Errorf("block %q %s", name, err)
			}
			return &blocks.Result{Outputs: outs}, !m.Recycle, nil
		case <-done:
			if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return nil, false, stopped(name, ctx.Err())
			}
			// The worker stops the code at the same deadline and says so;
			// give it a moment before killing it.
			done = nil
			t := time.NewTimer(p.opts.Grace)
			defer t.Stop()
			grace = t.C
		case <-grace:
			return nil, false, fmt.Errorf("block %q exceeded its timeout; its sandbox worker was stopped: %w", name, context.DeadlineExceeded)
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
	close(w.gone)
	w.req.Close()
	if w.cmd.Process != nil {
		syscall.Kill(-w.cmd.Process.Pid, syscall.SIGKILL)
		w.cmd.Process.Kill()
	}
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
	switch {
	case strings.Contains(out, "out of memory") || strings.Contains(out, "cannot allocate memory") ||
		strings.Contains(out, "errno=12"):
		return "exceeded its memory limit"
	case strings.Contains(out, "stack overflow") || strings.Contains(out, "stack exceeds"):
		return "exceeded its stack limit (the recursion is too deep)"
	}
	st := w.cmd.ProcessState
	if st != nil {
		if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			switch ws.Signal() {
			case syscall.SIGXCPU:
				return "exceeded its CPU time limit"
			case syscall.SIGKILL:
				w.mu.Lock()
				killed := w.killed
				w.mu.Unlock()
				if !killed {
					return "was stopped: its sandbox worker was killed (CPU time or memory limit)"
				}
			}
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
