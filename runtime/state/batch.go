package state

import (
	"context"
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// rowsPerStatement is how many step results or cache entries one INSERT
// statement writes. Executing a statement has a fixed cost (database/sql,
// the driver, the VDBE) that dominates a narrow row, so a batch is written
// in statements of this many rows, and only its tail row by row. Measured:
// 32 rows per statement costs about 60% of one statement per row.
const rowsPerStatement = 32

// A table receives one kind of asynchronous op. Its rows wait in pending
// (indexes into the batch) until the batch ends or, for the tables of a
// process's own runs, a synchronous op needs the writes before it
// applied (writeOwn); then they are written in the order of their keys,
// rowsPerStatement of them per statement.
type table struct {
	one, many *driverStmt // one row; rowsPerStatement rows
	// sized holds the statements of 2 to rowsPerStatement-1 rows, each
	// prepared when a batch's tail first has that many rows (nil when
	// preparing it failed: those rows are written one by one).
	sized map[int]*driverStmt
	// texts holds the SQL of the statements of n rows that a pipeline
	// sent (pipeline.go).
	texts   map[int]string
	def     *tableDef
	pending []int
}

// A tableDef is the SQL and the arguments of a table's rows.
type tableDef struct {
	insert, row, conflict string
	appendArgs            func(a *args, o *op)
	describe              func(o *op, err error) error
	// compare orders two rows by the key they are upserted by, for a
	// table whose rows several processes write (the cache): nil for
	// those written by the process that owns their run.
	compare func(a, b *op) int
	// key, when set, is what a row is upserted by, where a row replaces
	// every column of the one it conflicts with: of the rows of a batch
	// with one key only the last is written (the others it would
	// overwrite). PostgreSQL refuses a statement that upserts one row
	// twice, so a step's running and finished rows in one batch made its
	// statement fail and its rows be written one by one.
	key func(o *op) string
}

// args builds the arguments of a statement. It is reused from statement to
// statement, and so are the interface values of the strings that repeat
// from row to row (the run, the step, the status, the flow): converting a
// string to an interface allocates.
type args struct {
	list                      []driver.NamedValue
	now                       any // the batch's time
	runID, step, status, flow box
}

// add appends arguments to the list.
func (a *args) add(vs ...any) {
	for _, v := range vs {
		a.list = append(a.list, driver.NamedValue{Ordinal: len(a.list) + 1, Value: v})
	}
}

// A box holds the interface value of the last string it was asked for.
type box struct {
	s string
	v any
}

func (b *box) of(s string) any {
	if b.v == nil || b.s != s {
		b.s, b.v = s, s
	}
	return b.v
}

func (d *tableDef) sql(rows int) string {
	return d.insert + strings.TrimSuffix(strings.Repeat(d.row+",\n", rows), ",\n") + d.conflict
}

func (d *tableDef) prepare(ctx context.Context, conn *sqlConn) (*table, error) {
	t := &table{def: d, pending: make([]int, 0, rowsPerStatement)}
	var err error
	if t.one, err = prepareDriverStmt(ctx, conn, d.sql(1)); err != nil {
		return nil, err
	}
	if t.many, err = prepareDriverStmt(ctx, conn, d.sql(rowsPerStatement)); err != nil {
		t.one.Close()
		return nil, err
	}
	return t, nil
}

// A driverStmt is a statement prepared on the writer's connection through
// its driver (sql.Conn.Raw). Executing it hands the arguments to the
// driver as they are: database/sql's Stmt.ExecContext copies and checks
// every argument of every call, and a statement of rowsPerStatement step
// results has hundreds. The arguments are of the driver's own types
// (int64, string, []byte, nil).
type driverStmt struct {
	conn *sqlConn
	stmt execStmt
}

// execStmt is a driver statement that executes with a context.
type execStmt interface {
	driver.Stmt
	driver.StmtExecContext
}

func prepareDriverStmt(ctx context.Context, conn *sqlConn, query string) (*driverStmt, error) {
	s := &driverStmt{conn: conn}
	err := conn.Raw(func(dc any) error {
		p, ok := dc.(driver.ConnPrepareContext)
		if !ok {
			return fmt.Errorf("the database driver (%T) cannot prepare statements", dc)
		}
		st, err := p.PrepareContext(ctx, conn.b.bind(query))
		if err != nil {
			return err
		}
		ex, ok := st.(execStmt)
		if !ok {
			st.Close()
			return fmt.Errorf("the database driver's statements (%T) cannot execute with a context", st)
		}
		s.stmt = ex
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("preparing %q: %w", query, err)
	}
	return s, nil
}

func (s *driverStmt) execute(ctx context.Context, args []driver.NamedValue) error {
	return s.conn.Raw(func(any) error {
		_, err := s.stmt.ExecContext(ctx, args)
		return err
	})
}

func (s *driverStmt) Close() error {
	return s.conn.Raw(func(any) error { return s.stmt.Close() })
}

// text is the SQL of t's statement of n rows, bound for b.
func (t *table) text(n int, b backend) string {
	q, ok := t.texts[n]
	if !ok {
		if t.texts == nil {
			t.texts = map[int]string{}
		}
		q = b.bind(t.def.sql(n))
		t.texts[n] = q
	}
	return q
}

func (t *table) close() error {
	err := t.one.Close()
	if err2 := t.many.Close(); err == nil {
		err = err2
	}
	for _, s := range t.sized {
		if s == nil {
			continue
		}
		if err2 := s.Close(); err == nil {
			err = err2
		}
	}
	return err
}

// apply writes batch, whose first op is seq first, in one transaction
// marked mark (owner.go), and reports whether it committed. The errors of
// its ops go to the sync ops and to the attempt's failures; a transient
// error ends it early, in w.att.abort, with nothing written.
func (w *writer) apply(ctx context.Context, batch []op, first uint64, mark int64) bool {
	st := &w.stmts
	began := time.Now()
	w.dropPipeline()
	l, leased := w.owner.(*lease)
	if piped := leased && w.pipelined(); piped {
		// BEGIN and the mark go first in the pipeline (pipeline.go).
		w.pipe(w.b.begin(), nil, nil)
		l.pipeMark(w, mark)
	} else {
		if _, err := st.begin.ExecContext(ctx); err != nil {
			w.fatal(batch, first, fmt.Errorf("beginning a transaction: %w", err))
			return false
		}
		if err := w.owner.mark(ctx, st, mark); err != nil {
			st.rollback.ExecContext(ctx)
			w.fatal(batch, first, err)
			return false
		}
	}
	w.args.now = time.Now().UnixNano()
	for i := range batch {
		o := &batch[i]
		switch o.kind {
		case opStep:
			if w.taken(o.step.RunID, batch, first, i) && w.offload(&o.step.Outputs, w.steps, batch, first, i) {
				w.add(w.steps, batch, first, i)
			}
		case opCache:
			if w.offload(&o.cache.outputs, w.cache, batch, first, i) {
				w.add(w.cache, batch, first, i)
			}
		case opEvent:
			if w.taken(o.event.RunID, batch, first, i) {
				w.add(w.events, batch, first, i)
			}
		case opCall:
			if w.taken(o.call.RunID, batch, first, i) {
				w.add(w.calls, batch, first, i)
			}
		case opSync:
			if !o.sync.take() {
				o.sync.err = errWithdrawn
				continue
			}
			if !o.sync.blind {
				w.writeOwn(batch, first)
			}
			if w.att.abort != nil {
				break
			}
			if o.sync.run != "" && w.owner.lost(o.sync.run) {
				o.sync.err = fmt.Errorf("run %s: %w", o.sync.run, ErrRunTaken)
				continue
			}
			if o.sync.piped != nil && w.pipelined() {
				w.applyPiped(o.sync)
				continue
			}
			// The op's statements are answered one by one: what is
			// queued goes first.
			w.sendPipeline(ctx)
			if w.att.abort != nil {
				break
			}
			err := w.applySync(ctx, o.sync)
			if transient(err) {
				w.abort(err)
			} else if !w.failedHopefully(err) && w.hopeful() && st.conn.txFailed() {
				// The op ignored the error of a statement, which aborted
				// the transaction: COMMIT would roll the batch back and
				// say nothing.
				w.abort(errCareful)
			}
			o.sync.err = err
		}
		if w.att.abort != nil {
			break
		}
	}
	w.writeAll(batch, first)
	if !w.pipelined() || leased && time.Since(began) >= l.dur/5 {
		// What the lease's renewal writes comes after the batch's.
		w.sendPipeline(ctx)
	}
	if w.att.abort == nil {
		if err := w.owner.renew(ctx, st, began); err != nil && transient(err) {
			w.abort(err)
		}
	}
	if w.att.abort == nil && w.pipelined() {
		// COMMIT goes last in the pipeline: a batch whose ops are all
		// piped or rows is one round trip. An error there that may have
		// come from COMMIT leaves its outcome unknown (unsure, owner.go).
		w.pipe(`COMMIT`, nil, nil)
		if err := w.sendPipeline(ctx); err == nil {
			return true
		} else if transient(err) {
			w.att.committing = true
		}
	}
	if w.att.abort != nil {
		w.dropPipeline()
		w.steps.pending, w.cache.pending, w.events.pending, w.calls.pending = w.steps.pending[:0], w.cache.pending[:0], w.events.pending[:0], w.calls.pending[:0]
		st.rollback.ExecContext(ctx)
		return false
	}
	if _, err := st.commit.ExecContext(ctx); err != nil {
		// SQLite may have rolled back already, after an I/O error say; then
		// ROLLBACK fails too, harmlessly.
		st.rollback.ExecContext(ctx)
		if transient(err) {
			w.abort(err)
			w.att.committing = true
			return false
		}
		w.att.failures = w.att.failures[:0]
		w.failBatch(batch, first, fmt.Errorf("committing: %w", err))
		return false
	}
	return true
}

// fatal ends an attempt that failed before writing anything: a
// transient error is tried again, another fails the batch.
func (w *writer) fatal(batch []op, first uint64, err error) {
	if transient(err) {
		w.abort(err)
		return
	}
	w.failBatch(batch, first, err)
}

// abort ends the attempt with a transient error (the first one).
func (w *writer) abort(err error) {
	if w.att.abort == nil {
		w.att.abort = err
	}
}

// taken reports whether the op i of a run may be written: false, and
// the op failed, when another process took the run over (owner.go).
func (w *writer) taken(runID string, batch []op, first uint64, i int) bool {
	if !w.owner.lost(runID) {
		return true
	}
	w.att.failures = append(w.att.failures, failure{first + uint64(i), runID, fmt.Errorf("run %s: %w", runID, ErrRunTaken)})
	return false
}

// offload keeps a large value in a blob file and puts the reference in
// its place (see BlobThreshold). It reports whether the op can go on.
func (w *writer) offload(v *json.RawMessage, t *table, batch []op, first uint64, i int) bool {
	ref, err := storeBlob(w.dir, *v)
	if err != nil {
		w.att.failures = append(w.att.failures, failure{first + uint64(i), opRun(&batch[i]), t.def.describe(&batch[i], err)})
		return false
	}
	*v = ref
	return true
}

// add queues row i of t. The rows of a table are written when a sync op
// or the end of the batch needs them; in a database that several
// processes write (PostgreSQL) the rows of a table they share are sorted
// by key first (tableDef.compare), so that two processes writing the same
// rows (two applies storing the same cache entries) lock them in the
// same order and cannot deadlock each other.
func (w *writer) add(t *table, batch []op, first uint64, i int) {
	t.pending = append(t.pending, i)
}

// writeAll writes the pending rows of every table, at the end of the
// batch.
func (w *writer) writeAll(batch []op, first uint64) {
	for _, t := range []*table{w.steps, w.cache, w.events, w.calls} {
		if w.att.abort == nil {
			w.writeRows(t, batch, first)
		}
	}
}

// writeOwn writes the pending rows of the tables of this process's runs
// (steps, events) before a sync op, which may read them. The rows of a
// table that processes share (the cache, which no sync op reads) wait
// for the end of the batch, to be written all at once in the order of
// their keys: written in a sorted run before each sync op, the rows of
// one transaction were not in one order (a batch that stored k2 and k9,
// then k5, held k9 while it waited for k5; one that stored k5 first
// waited for k9), and concurrent applies deadlocked.
func (w *writer) writeOwn(batch []op, first uint64) {
	for _, t := range []*table{w.steps, w.events, w.calls} {
		if w.att.abort == nil {
			w.writeRows(t, batch, first)
		}
	}
}

// writeRows writes t's pending rows (in the order of their keys, see add:
// a stable sort, so that of two rows with one key the later one is
// written last and wins), rowsPerStatement of them per statement, and the
// rest in one statement of as many rows (a round trip each, on
// PostgreSQL, with its savepoint: the tail written row by row cost more
// than the rest of the batch).
// A statement that fails is undone as a whole, so then its rows are
// written one by one too, to keep the good ones and report each bad one.
func (w *writer) writeRows(t *table, batch []op, first uint64) {
	rows := t.pending
	if len(rows) == 0 {
		return
	}
	t.pending = rows[:0]
	ctx := context.Background()
	a := &w.args
	if t.def.compare != nil && w.b.guarded() {
		slices.SortStableFunc(rows, func(i, j int) int { return t.def.compare(&batch[i], &batch[j]) })
	}
	if t.def.key != nil && len(rows) > 1 {
		rows = lastOfKey(rows, batch, t.def.key)
	}
	for len(rows) > 0 {
		n := min(len(rows), rowsPerStatement)
		chunk := rows[:n]
		rows = rows[n:]
		if w.pipelined() {
			for _, i := range chunk {
				t.def.appendArgs(a, &batch[i])
			}
			w.rowStatements.Add(1)
			w.pipeRows(t.text(n, w.b), a)
			continue
		}
		stmt := w.statement(ctx, t, n)
		if w.att.abort != nil {
			return
		}
		if stmt != nil {
			for _, i := range chunk {
				t.def.appendArgs(a, &batch[i])
			}
			w.rowStatements.Add(1)
			err := w.exec(ctx, stmt, a)
			if err == nil {
				continue
			}
			if transient(err) {
				w.abort(err)
				return
			}
			if w.failedHopefully(err) {
				return
			}
		}
		for _, i := range chunk {
			t.def.appendArgs(a, &batch[i])
			w.rowStatements.Add(1)
			err := w.exec(ctx, t.one, a)
			if transient(err) {
				w.abort(err)
				return
			}
			if w.failedHopefully(err) {
				return
			}
			if err != nil {
				w.att.failures = append(w.att.failures, failure{first + uint64(i), opRun(&batch[i]), t.def.describe(&batch[i], err)})
			}
		}
	}
}

// lastOfKey keeps, of the rows (indexes into batch) with one key, the
// last, in place and in their order.
func lastOfKey(rows []int, batch []op, key func(o *op) string) []int {
	seen := make(map[string]bool, len(rows))
	keep := len(rows)
	for j := len(rows) - 1; j >= 0; j-- {
		k := key(&batch[rows[j]])
		if seen[k] {
			continue
		}
		seen[k] = true
		keep--
		rows[keep] = rows[j]
	}
	return append(rows[:0], rows[keep:]...)
}

// statement is t's statement of n rows, nil for one row or when it cannot
// be prepared (the rows are then written one by one). A statement of
// fewer than rowsPerStatement rows is prepared the first time it is
// needed, in a savepoint where a failure would abort the transaction.
func (w *writer) statement(ctx context.Context, t *table, n int) *driverStmt {
	switch {
	case n <= 1:
		return nil
	case n == rowsPerStatement:
		return t.many
	}
	if s, ok := t.sized[n]; ok {
		return s
	}
	var s *driverStmt
	prep := func() error {
		var err error
		s, err = prepareDriverStmt(ctx, t.one.conn, t.def.sql(n))
		return err
	}
	var err error
	if w.b.guarded() && !w.hopeful() {
		err = w.savepoint(ctx, prep)
	} else {
		err = prep()
	}
	if transient(err) {
		w.abort(err)
		return nil
	}
	if w.failedHopefully(err) {
		return nil
	}
	if t.sized == nil {
		t.sized = map[int]*driverStmt{}
	}
	t.sized[n] = s
	return s
}

// exec executes a statement of the batch. Where a failed statement aborts
// the transaction (PostgreSQL), it runs in a savepoint, so that the
// others go on. (In PostgreSQL, rows of one statement that name the same
// step instance fail it: its rows are then written one by one.)
// The arguments are a's list, which exec empties.
func (w *writer) exec(ctx context.Context, stmt *driverStmt, a *args) error {
	defer func() {
		clear(a.list) // drop the references to the rows' values
		a.list = a.list[:0]
	}()
	if !w.b.guarded() || w.hopeful() {
		return stmt.execute(ctx, a.list)
	}
	return w.savepoint(ctx, func() error { return stmt.execute(ctx, a.list) })
}

// keyHash is the 64-bit FNV-1a hash of a cache key. The cache is indexed by
// it rather than by the key: cache keys are long and random, and an index
// of 8-byte integers is a quarter of the size, so that the many random
// inserts of a run dirty (and write to the WAL) far fewer pages. Two keys
// with the same hash share a slot: the later CachePut evicts the other
// entry, and CacheGet checks the key, so the cost of a collision is a
// cache miss.
func keyHash(key string) int64 {
	const (
		offset = 14695981039346656037
		prime  = 1099511628211
	)
	h := uint64(offset)
	for i := 0; i < len(key); i++ {
		h ^= uint64(key[i])
		h *= prime
	}
	return int64(h)
}
