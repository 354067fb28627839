package state

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// The errors of the writer's asynchronous writes, by run, and the
// database's refusing writes (a full disk): what Flush, FlushRun and
// WaitWritable report.

// An asyncErr is the first asynchronous write error of a run not yet
// reported, the seq of its op, and how many more failed after it.
type asyncErr struct {
	err  error
	seq  uint64
	more int
}

// flush waits until every op queued so far has been written and returns the
// first asynchronous write error among them not reported before, of any
// run.
func (w *writer) flush() error {
	return w.flushRun("", true)
}

// flushRun is flush that reports the errors of run's writes only (all
// runs' with any).
func (w *writer) flushRun(run string, any bool) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closing {
		return ErrClosed
	}
	target := w.seq
	if w.done < target {
		w.hurry()
	}
	for w.done < target {
		w.settled.Wait()
	}
	if any {
		return w.takeAnyErrLocked(target)
	}
	if w.stepSeq[run] <= target {
		delete(w.stepSeq, run)
	}
	return w.takeErrLocked(run, target)
}

// ErrNotRecorded is wrapped by WaitWritable's error for a run one of
// whose step results (or events) could not be recorded, for good: a
// constraint the database enforces refused it (a foreign key, a NUL byte
// in PostgreSQL's text). Nothing more is started for the run; FlushRun
// reports the write's own error.
var ErrNotRecorded = errors.New("a result of the run could not be recorded")

// settleRun returns once the step results of run queued so far have been
// written, or have failed: with ErrNotRecorded when a write of the run
// failed for good (kept for FlushRun to report), or with ctx's error. A
// step's dependants start only once its result is recorded.
func (w *writer) settleRun(ctx context.Context, run string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	target := w.stepSeq[run]
	if w.done < target {
		stop := context.AfterFunc(ctx, func() {
			w.mu.Lock()
			w.settled.Broadcast()
			w.mu.Unlock()
		})
		defer stop()
		w.hurry()
		for w.done < target && !w.closing {
			if err := ctx.Err(); err != nil {
				return err
			}
			w.settled.Wait()
		}
		if w.closing {
			return ErrClosed
		}
	}
	if target != 0 && w.stepSeq[run] == target {
		delete(w.stepSeq, run)
	}
	if e := w.errs[run]; e != nil {
		return fmt.Errorf("run %s: %w: %w", run, ErrNotRecorded, e.err)
	}
	return nil
}

// takeErr returns, and forgets, the first asynchronous write error of
// run's ops queued at or before seq.
func (w *writer) takeErr(run string, seq uint64) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.takeErrLocked(run, seq)
}

func (w *writer) takeErrLocked(run string, seq uint64) error {
	e := w.errs[run]
	if e == nil || e.seq > seq {
		return nil
	}
	delete(w.errs, run)
	if e.more > 0 {
		return fmt.Errorf("%w (and %d more failed writes)", e.err, e.more)
	}
	return e.err
}

// takeAnyErrLocked returns, and forgets, the first asynchronous write
// error of an op queued at or before seq, of any run, counting the
// others it forgets with it.
func (w *writer) takeAnyErrLocked(seq uint64) error {
	var first *asyncErr
	more := 0
	for run, e := range w.errs {
		if e.seq > seq {
			continue
		}
		delete(w.errs, run)
		if first == nil || e.seq < first.seq {
			if first != nil {
				more += 1 + first.more
			}
			first = e
		} else {
			more += 1 + e.more
		}
	}
	if first == nil {
		return nil
	}
	if more += first.more; more > 0 {
		return fmt.Errorf("%w (and %d more failed writes)", first.err, more)
	}
	return first.err
}

// failed records the failure of run's asynchronous op seq, and of n-1
// more.
func (w *writer) failed(run string, seq uint64, n int, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if e := w.errs[run]; e != nil {
		e.more += n
		return
	}
	if w.errs == nil {
		w.errs = map[string]*asyncErr{}
	}
	w.errs[run] = &asyncErr{err: err, seq: seq, more: n - 1}
}

// A refusal is the database's refusing writes (refusesWrites), since at.
type refusal struct {
	at  time.Time
	err error
}

// waitWrites returns once the database takes writes (no refusal), or
// ErrUnavailable once it has refused them for longer than the wait, or
// ctx's error.
func (w *writer) waitWrites(ctx context.Context) error {
	for {
		r := w.refused.Load()
		if r == nil {
			return nil
		}
		if time.Since(r.at) >= w.wait {
			return unavailable(w.wait, r.err)
		}
		t := time.NewTimer(refusedPoll)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// refusedPoll is how often waitWrites looks whether writes are taken again.
const refusedPoll = 50 * time.Millisecond

// failBatch gives err to every op of a batch that did not commit: the
// asynchronous ones' failures are counted by run.
func (w *writer) failBatch(batch []op, first uint64, err error) {
	type count struct {
		first uint64
		n     int
	}
	var runs []string
	counts := map[string]*count{}
	for i := range batch {
		o := &batch[i]
		if o.kind == opSync {
			if o.sync.err == nil {
				o.sync.err = err
			}
			continue
		}
		run := opRun(o)
		c := counts[run]
		if c == nil {
			c = &count{first: first + uint64(i)}
			counts[run] = c
			runs = append(runs, run)
		}
		c.n++
	}
	for _, run := range runs {
		c := counts[run]
		w.failed(run, c.first, c.n, fmt.Errorf("writing %d step results and cache entries: %w", c.n, err))
	}
}
