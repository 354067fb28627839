// Package state is flowctl's embedded state store: one SQLite database,
// state.db, in the state directory (.flowctl/ next to the flow file, or
// --state DIR). It holds the runs of flows, the result of every step
// instance, the result cache and the memory of flows (docs/design.md, "State and cache" and "Memory"),
// the embedding vectors of registry search (Vectors, a VectorCache of
// package blocks/index, written by the commands that search), the
// proposals of flowctl think --edit and flowctl explain, and the patterns
// think reuses (flows that worked, patterns.go).
//
// The parent package runtime is the only writer of runs, step results,
// cache entries and memory: it creates a run, records step results as they
// finish, stores cache entries, saves memory and finishes the run. The CLI
// (flowctl runs, flowctl output, plan's cache look-up) only reads them;
// the vectors are written by whoever searches the registry. Values are opaque to this package: the runtime
// encodes inputs, outputs, usage and memory as JSON itself, and they are
// stored and read back byte for byte. The store never inspects them, so the
// runtime must redact sensitive values before handing them over, to
// RecordStep and CachePut alike (docs/design.md, "Secrets"); StepResult.Sensitive only
// records that it did.
//
// # Writes
//
// Step results (RecordStep) and cache entries (CachePut) are written
// asynchronously: they are handed to a single writer goroutine that
// group-commits. It waits for the first pending write, takes everything else
// queued by then, and commits it all in one transaction; after a commit it
// gathers writes for up to 10ms before the next, unless a caller waits for
// it. So under load many rows share one commit, and an idle store commits
// a row within 10ms. Handing a
// row over costs the caller a copy into the queue, no I/O; when the writer
// falls far behind, the caller waits for it. Flush waits until everything
// handed over before it is committed, and returns the first asynchronous
// write error not reported yet (each is reported once; a failed row does not
// stop the others of its transaction). The errors are kept by run: FlushRun
// and FinishRun report those of their run's writes only, so that a run's
// error never names another run and no run takes another's failure.
//
// CreateRun, FinishRun and SetMemory are synchronous: they go through the
// same queue, in order, and return once committed. So every write is applied
// in the order it was handed over: in particular FinishRun commits the step
// results recorded before it (and reports their errors, as Flush does), and
// a later RecordStep of the same step instance replaces an earlier one.
// Close flushes too.
//
// Reads (Runs, Run, Steps, LatestRun, Memory, CacheGet) see committed data
// only: call Flush first to read one's own asynchronous writes.
//
// # Durability
//
// The database runs in WAL mode with synchronous=NORMAL. A committed
// transaction survives the process being killed at any moment, SIGKILL
// included; an operating-system crash or power loss may lose the last
// transactions but does not corrupt the database. Several processes may open
// the same database at once: writers take turns, waiting up to a busy
// timeout for each other.
//
// # Schema
//
// The schema is versioned with PRAGMA user_version and migrated forward by
// Open inside one transaction (schema.go). A database written by a newer
// flowctl, with a schema version this build does not know, is refused.
package state
