// Package runtime executes compiled flows.
//
// The scheduler starts each step instance the moment the steps it depends
// on have finished (never stage by stage), bounded by the run's parallelism
// and each for_each step's own. Expressions are evaluated with real values
// through the compiler's Scope; values cross into blocks unmarked and come
// back converted to the declared types. Results are recorded in the state
// store (package runtime/state) as they finish, cacheable results are
// reused across runs, and every value derived from a secret stays marked
// sensitive so that it never reaches the state, the events or the logs.
//
// The run's life is in runtime.go (starting a run and its steps), step.go
// (scheduling: which steps are ready, their instances, and the values
// they hand on), instance.go and retry.go (running one instance: its
// inputs, its attempts), cache.go and record.go (recording: cache keys,
// what the state and the events are told as each instance ends), and
// finish.go and memory.go (finishing: outputs, status, memories).
// What the entry points need around a run is here too, so that the CLI,
// serve and the temporal engine's client share it: resume_prepare.go
// (the flow file, checks and inputs of a run to resume, and its
// approvals), critical.go (the critical path by the time steps take) and
// secrets_given.go (--secret values).
//
// Package compiler supplies the checked Program; package blocks the
// executors that run each kind of block. The CLI renders the events.
// The events, statuses, keys and labels, and the events' JSON live in
// package runtime/event, so that code that only renders them need not
// import the runtime; events.go names them here.
package runtime
