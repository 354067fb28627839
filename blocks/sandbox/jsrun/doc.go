// Package jsrun runs the code of js blocks (runtime = "js") in
// process with goja.
//
// A block's source is compiled once (Compile; the Executor caches programs
// by the hash of their source) and every call runs in a fresh goja
// Runtime, so nothing a call does — to the global object, to the built-in
// prototypes, to its own top-level variables — can be seen by another
// call. A fresh runtime costs less than the 30 µs a trivial call may take
// (goja builds its built-ins lazily), so there is no pool of runtimes
// whose cleanliness would need proving.
//
// The source must define a function execute(input, ctx). What enters: the
// call's inputs (cty values), built in the runtime as JSON.parse would make
// them of their JSON (json.go); ctx is a frozen {step}. execute may return
// a Promise (or be async): it is awaited by running the runtime's job
// queue to its end. What leaves: the result, serialised by the runtime's
// own JSON.stringify algorithm (which the code cannot replace) and decoded
// by package jsonval into one value per output field, with the types the
// JSON implies (converting them to the declared types is left to the
// caller); console output, as lines of the call's log; and errors as
// sandbox.Error, at the line of the block's code mapped to the flow or
// block file. Check is validate's: it compiles the source without running
// it and reports a syntax error, or a source without an execute function,
// as a diagnostic at its line.
//
// The globals are ECMAScript's, console.log (with the aliases info, warn,
// error and debug), which writes to the call's log, at most 64 KiB per
// call, and goja's GoError, an ordinary Error constructor. goja has no
// require, timers, network, file system or process. The package never
// hands a Go object to a runtime: only strings cross, and the console
// functions, which are native functions. It disables source maps, whose
// loader would read any file named by a sourceMappingURL comment in the
// block or in code it evals.
//
// A call is interrupted when its context ends (timeouts and
// cancellation), and its functions may nest 1,000 calls deep. Execute
// runs the JavaScript on a goroutine of its own and returns at most a
// second after the context ends even when the code is inside a built-in
// function, which goja cannot interrupt; that goroutine is then abandoned
// and ends when the built-in returns. Executor.ExecuteUntil (for a
// sandbox worker process, which the pool kills when a call outlives its
// deadline) runs the JavaScript on the caller's goroutine instead,
// interrupted at a deadline rather than by a context.
//
// What cannot be contained in process is the Go runtime's own limits.
// One built-in call can ask for any amount of memory ('x'.repeat(2**40),
// new ArrayBuffer(2**40)), and Go ends the process when an allocation
// fails; a loop can fill memory before its timeout; some built-ins recurse
// in Go on data the code builds (eval of deeply nested code, a call
// through a long chain of bound functions) until the goroutine's stack
// passes 1 GB, which also ends the process; and some take time quadratic
// in their input (JSON.stringify of deeply nested objects) without
// checking for interrupts. Compile refuses sources over 512 KiB and
// brackets nested over 1,000 deep, which keeps goja's recursive parser
// within its stack, but a source crafted to mislead that check can still
// crash it. Untrusted code must therefore run in a worker process with
// memory limits; this package is the engine such a worker runs (package
// isolate).
//
// The files:
//
//   - compile.go: compiling and checking a source; Compile and Check.
//   - executor.go: Executor, a call's run, and the errors it gives.
//   - json.go: inputs into a runtime, the result out of it.
//   - console.go: console.log and the call's log.
package jsrun
