package isolate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/flowctl/flowctl/blocks"
)

// pipelineDepth is how many calls of a block a worker may be sent at
// once, the one it runs and those queued behind it, while the pace of the
// block's calls is not known, or is slow; maxPipelineDepth is how many
// when its calls are short (see depth).
const (
	pipelineDepth    = 8
	maxPipelineDepth = 64
)

// queueBehind is how recently a worker must have started its current
// call to be sent more: a call is not queued behind one that is slow.
const queueBehind = 20 * time.Millisecond

// Width is how many calls of block b the pool can use at once: each worker
// running one with its pipeline full behind it. A caller with more to
// make (a for_each of 100,000 items) gains nothing by making them all at
// once: they would wait in the pool, each holding its inputs, a goroutine
// and a timer, and fail after MaxWait at the back of a long queue. It
// grows as the pool learns that b's calls are short (depth), so a caller
// asks again as its calls end.
func (p *Pool) Width(b *blocks.Block) int {
	var pace *atomic.Int64
	if b != nil && b.Def != nil {
		if e, err := p.wireOf(b.Def); err == nil {
			pace = e.pace
		}
	}
	return p.opts.Size * p.depth(pace)
}

// depth is how many calls of a block a worker may be sent at once: as
// many as it runs in queueBehind at the pace of the block's calls so far
// (pace, nanoseconds; 0 when none has ended), between pipelineDepth and
// maxPipelineDepth. A call queued behind the others then waits about as
// long as one queued behind a call that is slow; and short calls, sent
// in numbers, are read and answered many to a system call, rather than
// one process wake-up each, with the worker never left waiting for its
// next call (20,000 calls of a small js block took 2.9–3.5 s with 8 at
// most, 2.3–2.8 s with more).
func (p *Pool) depth(pace *atomic.Int64) int {
	if pace == nil {
		return pipelineDepth
	}
	d := time.Duration(pace.Load())
	if d <= 0 {
		return pipelineDepth
	}
	return min(max(int(p.behind/d), pipelineDepth), maxPipelineDepth)
}

// timed adds how long a call ran, from its start to its reply, to the
// pace of its block's calls: a moving average, in which the last call
// counts for an eighth. It is called with the pool's mutex held.
func timed(pace *atomic.Int64, d time.Duration) {
	old := pace.Load()
	if old == 0 {
		pace.Store(max(int64(d), 1))
		return
	}
	pace.Store(max(old+(int64(d)-old)/8, 1))
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
	w := c.w
	e, timedOut, ended := w.outcome(ctx, c, p.opts.Grace)
	name := c.call.Block.Name
	if e.kind == evFailed {
		switch {
		case timedOut:
			return nil, fmt.Errorf("block %q exceeded its timeout; its sandbox worker was stopped: %w", name, context.DeadlineExceeded)
		case ended() != nil:
			return nil, blocks.Stopped(name, ended())
		case errors.Is(e.err, errTooLong):
			return nil, fmt.Errorf("block %q returned more than %d bytes", name, w.max)
		case errors.Is(e.err, errUnexpected), errors.Is(e.err, errClosed):
			return nil, fmt.Errorf("block %q: %w", name, e.err)
		}
		return nil, fmt.Errorf("block %q %s", name, w.death())
	}
	m := e.msg
	if c.python {
		return pythonResult(c, m)
	}
	if c.program != "" {
		return compiledResult(c, m, p.opts.MaxMessage/2)
	}
	if m.Error != "" {
		if m.Timeout || errors.Is(ended(), context.DeadlineExceeded) {
			// The worker stopped the code at its deadline, just after ours.
			return nil, fmt.Errorf("%s: %w", m.Error, context.DeadlineExceeded)
		}
		return nil, errors.New(m.Error)
	}
	outs, err := m.values, error(nil)
	if outs == nil {
		outs, err = decodeOutputs(m.Outputs)
	}
	if err != nil {
		return nil, fmt.Errorf("block %q %s", name, err)
	}
	return &blocks.Result{Outputs: outs}, nil
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
		w := p.pickLocked(c, false)
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
			w = p.pickLocked(c, true)
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

// pickLocked returns an idle worker of c's program, or with busy the
// least loaded one that may be sent c behind its calls, or nil.
func (p *Pool) pickLocked(c *pcall, busy bool) *proc {
	var best *proc
	var now time.Time
	depth := p.depth(c.pace)
	for _, w := range p.workers {
		if w.program != c.program || !p.acceptsLocked(w) || w.exited() {
			continue
		}
		n := len(w.pending)
		if n == 0 {
			return w
		}
		if !busy || n >= depth || (best != nil && n >= len(best.pending)) {
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
