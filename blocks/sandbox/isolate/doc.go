// Package isolate runs go, js and python blocks in a pool of warm worker
// processes, so that code which exhausts memory, overflows the stack,
// spins in a native call or crashes takes down a worker, not flowctl.
//
// A worker of go and js blocks is the flowctl binary re-executed with
// [WorkerArg] as its first argument; its main function calls [Main]. It starts with an empty
// environment, confines itself before it reads a request (resource limits,
// Landlock, a seccomp filter, and a new user and network namespace, which
// it makes as its process starts, before the Go runtime, when built with
// cgo, and which the kernel makes as it is spawned otherwise), and then
// serves one call at a time: the parent
// writes a request as one line of JSON to the worker's file descriptor 3
// and reads log lines and the reply, one JSON object per line, from its
// file descriptor 4. Standard output and error are not part of the
// protocol: what the worker's runtime prints when it dies is kept to say
// why.
//
// The parent ([Pool]) enforces each call's wall-clock deadline: a worker
// that has not answered shortly after it is killed with its process
// group. A worker is replaced after a timeout, a crash, an oversized
// message or a given number of calls.
//
// A compiled go block's worker confines itself and then executes the
// block's program, which speaks the same protocol. A python block's worker
// is not the flowctl binary: the pool starts the interpreter itself with
// the runner of package pyrun, which makes its own namespaces, sets the
// limits, enforces the Landlock ruleset the pool builds once per process
// and passes it (file descriptor 5) and installs the seccomp filter before
// it reads a request, and refuses to run when it cannot. Each such block
// has workers of its own, and its calls given a sensitive value workers
// apart from its others (what a call leaves in the interpreter that the
// runner does not put back stays among calls of the same sensitivity). They need the operating system's confinement:
// where there is none (see Unconfinable), the pool refuses them unless
// Options.Unconfined.
//
// The files, on the pool's side:
//
//   - pool.go: Options, the Pool, and Execute, which prepares a call.
//   - schedule.go: which worker takes a call (dispatch, the pipeline of
//     calls sent ahead), waiting for one, and a call's outcome.
//   - workers.go: starting a worker for a call (or ahead of the calls,
//     Prestart), reading its replies and log lines, writing its
//     requests, and a worker that is lost.
//   - programs.go: what the pool sends of a block (its definition's wire
//     form, made once) and the result of a compiled block's program.
//   - python.go: python blocks' workers and results.
//   - unconfined.go: systems where workers cannot be confined.
//   - proc.go: one worker process, its start-up, watchdog and death.
//   - route.go: the executor that sends a block's calls to the pool or in
//     process.
//
// On the worker's side: worker.go (Main, serving requests), confine_*.go
// and seccomp_*.go (the confinement), unshare_*.go (namespaces made by the
// worker itself), spawn_*.go and sys_*.go (process attributes). protocol.go holds the messages both sides exchange.
package isolate
