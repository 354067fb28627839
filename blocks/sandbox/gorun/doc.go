// Package gorun runs the code of go blocks (runtime = "go") in the
// yaegi interpreter, in process, with only an allowlist of standard
// packages.
//
// A block's code is package block with
//
//	func Execute(ctx context.Context, input map[string]any) (map[string]any, error)
//
// It receives its inputs as JSON-shaped values (string, float64, bool,
// []any, map[string]any, nil); what it returns is encoded with
// encoding/json, field by field, and decoded to cty values of the types the
// JSON implies, then converted to the declared output types.
//
// Check is for validate: it parses the code, reports an import outside
// Packages (os, os/exec, net, syscall, unsafe, reflect, runtime, plugin…)
// at the import's line of the flow file, and compiles the code with yaegi
// (running none of it), mapping compile errors to flow-file lines the same
// way.
//
// Executor implements blocks.Executor for the go runtime. Per source code
// it keeps the result of checking it and a pool of workers: interpreters
// that hold the code compiled once and serve one call at a time on a
// goroutine of their own, under a context (see worker). A call that times
// out, is cancelled or panics stops its interpreter, which is then dropped;
// the next call compiles a new one.
//
// The files:
//
//   - allowlist.go: the allowed packages and the symbols removed from them
//     (the one list of both engines and of docs/language.md, which
//     go generate writes with gendocs/), and the symbol table given to an
//     interpreter.
//   - wrap/: text/template and html/template as blocks get them, with a
//     Template that cannot read files, and the context functions that
//     refuse a parent Context of the block's own (wrap/contextcheck):
//     symbols for the interpreter, source (WrapperFS) for the compiled
//     engine.
//   - context.go: the context functions the interpreter gets.
//   - check.go: parsing and checking the code; Check.
//   - instrument.go: the line tracking that places panics.
//   - interp.go: making an interpreter; compiling without running.
//   - worker.go: a worker, its serve loop, and the streams of its
//     interpreter (print and println go to the call's Log).
//   - executor.go: Executor, its caches, and the errors it returns.
//   - convert.go: inputs to Go values, outputs from JSON to cty.
//   - position.go: mapping lines of the code to the flow file.
//
// Package-level variables of the code live as long as their interpreter:
// successive calls served by one worker see them, calls served by another
// worker do not. Blocks should not rely on either.
//
// What the allowlist and the context cannot contain, because the code runs
// in the flowctl process:
//
//   - Memory: nothing bounds what the code allocates; running out of
//     memory kills the process.
//   - Stack: each interpreted call takes many Go frames, so deep or endless
//     recursion reaches Go's 1 GB stack limit, a fatal error of the whole
//     process, possibly before the call's timeout.
//   - CPU after a stop: stopped code ends at its next interpreted step, but
//     a standard function it called (a regexp over a huge text,
//     strings.Repeat, sort.Slice, json.Marshal of a large value) runs to its
//     end on the abandoned goroutine. Functions that wait (time.Sleep,
//     timers) are removed for that reason.
//   - The process around it: yaegi reads YAEGI_* environment variables when
//     an interpreter is made (YAEGI_NO_RUN disables running code;
//     YAEGI_AST_DOT and YAEGI_CFG_DOT write graph files with the command
//     of YAEGI_DOT_CMD), and on some code it cannot compile it logs
//     through the standard logger (stderr) before panicking.
package gorun
