// Package pyrun is flowctl's python runtime: python blocks (runtime =
// "python") run on CPython, 3.11 or newer, in confined workers of package
// isolate's pool.
//
// Find finds the interpreter once per process: FLOWCTL_PYTHON, else
// python3 on PATH, started once with the user's environment to say which
// executable it is (a launcher such as pyenv's shim is a script that
// starts another), its version and where it reads modules. That process is
// the helper (helper.py): it stays to answer questions, and is stopped
// when idle.
//
// What enters, for validate: block definitions. Check sends each block's
// code to the helper, which parses it with ast.parse (running none of
// it), and reports syntax errors, imports outside the allowlist
// (allowlist.go, the one list the checks, the runner, the docs and the
// thinker use) and an execute that is missing or cannot be called with
// (input, ctx), as diagnostics at the lines of the flow file. Without an
// interpreter, each python block is an error at its runtime argument
// (NotFoundSummary), which validate makes a warning.
//
// What enters, for a run: isolate's pool starts the interpreter with the
// command line Worker.Args makes: -I -S -B and the runner (confine.py and
// runner.py, embedded; compiled once and kept in the cache), with a
// RunnerConfig. The runner confines itself (namespaces, resource limits,
// the Landlock ruleset it is passed, the seccomp filter it is given) or
// refuses to run, adds an audit hook and the import guard, then speaks the
// worker protocol: each request's inputs arrive as JSON (numbers that are
// integral as int), each call runs the block's code (compiled once, with
// its lines at the lines of the flow file, the modules it names imported
// before its first call) in fresh globals and a fresh contextvars.Context
// and calls execute, awaiting it when it is a coroutine; print goes to the
// call's log. After each call the runner puts the interpreter back as it
// was before the first (reset.py: modules, what they hold one level down,
// the interpreter's settings, decimal's contexts, random's seed, file
// descriptors), so that no call sees state another left. What leaves: the reply, each output as JSON, or the error with its
// line; Finish turns it into the call's result, each output converted to
// its declared type, or an error that names the output, the type expected
// and the value got.
//
// The files:
//
//   - python.go: Find, the interpreter, the helper process.
//   - check.go: Check, the static checks.
//   - allowlist.go: the modules a block may import.
//   - worker.go: what a worker needs, and its command line.
//   - result.go: Finish, a reply into a result.
//   - helper.py, confine.py, reset.py, runner.py: the Python that runs in
//     the helper and in the workers (the runner is the last three, in
//     that order, as one module).
package pyrun
