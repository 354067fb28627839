package state

import (
	"cmp"
	"fmt"
)

// The tables whose rows the writer writes many at a time: a step's
// results, cache entries, a run's events and its model calls.

var steps = tableDef{
	insert: `INSERT INTO steps (run_id, step, instance, status, attempts, started_at,
	finished_at, outputs, sensitive, error, cache_key, usage, log) VALUES `,
	row: `(?, ?, ?, ?, ?, ?, ?, CAST(? AS TEXT), ?, ?, ?, CAST(? AS TEXT), ?)`,
	// Rows of one statement may name the same step instance: SQLite applies
	// them in order, so the last one wins there too.
	conflict: `
ON CONFLICT (run_id, step, instance) DO UPDATE SET
	status = excluded.status,
	attempts = excluded.attempts,
	started_at = excluded.started_at,
	finished_at = excluded.finished_at,
	outputs = excluded.outputs,
	sensitive = excluded.sensitive,
	error = excluded.error,
	cache_key = excluded.cache_key,
	usage = excluded.usage,
	log = excluded.log`,
	appendArgs: func(a *args, o *op) {
		r := o.step
		a.add(
			a.runID.of(r.RunID), a.step.of(r.Step), r.Instance, a.status.of(r.Status),
			int64(r.Attempts), nanos(r.StartedAt), nanos(r.FinishedAt), text(r.Outputs),
			flag(r.Sensitive), prose(r.Error), r.CacheKey, text(r.Usage), prose(r.Log))
	},
	describe: func(o *op, err error) error {
		r := o.step
		return fmt.Errorf("recording step %s%s of run %s: %w", r.Step, instanceSuffix(r.Instance), r.RunID, err)
	},
	key: func(o *op) string { return o.step.RunID + "\x00" + o.step.Step + "\x00" + o.step.Instance },
}

var cache = tableDef{
	insert: `INSERT INTO cache (hash, key, flow, step, outputs, stored_at) VALUES `,
	row:    `(?, ?, ?, ?, CAST(? AS TEXT), ?)`,
	conflict: `
ON CONFLICT (hash) DO UPDATE SET
	key = excluded.key,
	flow = excluded.flow,
	step = excluded.step,
	outputs = excluded.outputs,
	stored_at = excluded.stored_at`,
	appendArgs: func(a *args, o *op) {
		c := o.cache
		a.add(c.hash, c.key, a.flow.of(c.flow), a.step.of(c.step), text(c.outputs), a.now)
	},
	describe: func(o *op, err error) error {
		return fmt.Errorf("storing the cache entry of step %s (key %s): %w", o.cache.step, o.cache.key, err)
	},
	compare: func(a, b *op) int { return cmp.Compare(a.cache.hash, b.cache.hash) },
}

var events = tableDef{
	insert: `INSERT INTO events (run_id, seq, type, data) VALUES `,
	row:    `(?, ?, ?, CAST(? AS TEXT))`,
	conflict: `
ON CONFLICT (run_id, seq) DO UPDATE SET
	type = excluded.type,
	data = excluded.data`,
	appendArgs: func(a *args, o *op) {
		e := o.event
		a.add(a.runID.of(e.RunID), e.Seq, e.Type, text(e.Data))
	},
	describe: func(o *op, err error) error {
		return fmt.Errorf("recording event %d of run %s: %w", o.event.Seq, o.event.RunID, err)
	},
}

var calls = tableDef{
	insert: `INSERT INTO calls (run_id, seq, step, instance, data) VALUES `,
	row:    `(?, ?, ?, ?, CAST(? AS TEXT))`,
	conflict: `
ON CONFLICT (run_id, seq) DO UPDATE SET
	step = excluded.step,
	instance = excluded.instance,
	data = excluded.data`,
	appendArgs: func(a *args, o *op) {
		c := o.call
		a.add(a.runID.of(c.RunID), c.Seq, a.step.of(c.Step), c.Instance, text(c.Data))
	},
	describe: func(o *op, err error) error {
		return fmt.Errorf("recording model call %d of run %s: %w", o.call.Seq, o.call.RunID, err)
	},
}
