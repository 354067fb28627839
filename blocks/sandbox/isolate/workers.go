package isolate

import (
	"slices"
	"time"
)

// spawnFor starts a worker for a call the pool chose to start one for,
// and sends it the call.
func (p *Pool) spawnFor(c *pcall) error {
	w, err := p.spawn(c.program)
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.joinLocked(w, err); err != nil {
		return err
	}
	p.assignLocked(w, c)
	p.dispatchLocked()
	return nil
}

// Prestart starts workers for js and interpreted go blocks in the
// background, up to n of them and the pool's Size counting those it has:
// for a run about to call such blocks, whose first calls would otherwise
// wait for the workers to start (about 0.1 s) while the run's state is
// opened and its inputs are read. A worker that cannot start is left to
// the first call, which says why.
func (p *Pool) Prestart(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for n = min(n, p.opts.Size) - len(p.workers) - p.starting; n > 0 && !p.closed; n-- {
		p.starting++
		go func() {
			w, err := p.spawn("")
			p.mu.Lock()
			defer p.mu.Unlock()
			if p.joinLocked(w, err) == nil {
				p.dispatchLocked()
			}
		}()
	}
}

// joinLocked puts a worker that was started in service, or returns why
// there is none (err, or the pool closed meanwhile).
func (p *Pool) joinLocked(w *proc, err error) error {
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
		timed(c.pace, time.Since(w.headStart))
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
			buf = appendRequest(buf, c.id, c.key, def, c.outs, c.step, c.inputs, timeoutMS(c), c.call.Attempt)
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
