// Package gobuild builds go blocks with engine = "compiled" into programs
// with the Go toolchain found on PATH, and keeps them in a cache.
//
// A program is a module of three packages: the block's code as package
// block (with print and println that write to the call's log, unless the
// code declares its own), package runner (this package's runner
// directory, copied as source: it confines the process and speaks the
// sandbox worker protocol), and a main that serves the block's Execute.
// Everything is the standard library, so a build downloads nothing. It is
// built with CGO_ENABLED=0, -trimpath and a Go build cache of its own, and
// kept under the cache directory by a hash of the code, the runner, the Go
// version, flowctl's version and the platform; a second run of an
// unchanged block does not build. Builds of one block, by this process or
// others, happen once: a file lock guards each.
//
// What enters: a block definition (lang.BlockDef) with its source. What
// leaves: for validate, Builder.Check's diagnostics — the code is checked
// as an interpreted block's is (gorun.Vet) before it is built, and the
// compiler's errors are reported at the block's own lines of the flow or
// block file; for a run, Builder.Program's Program, the path of the
// executable and the line of func Execute. No call goes through this
// package: package isolate runs the programs as sandbox workers, and
// their replies (a runner.Outcome each) are turned into results by
// package gorun, as the interpreter's are.
//
// The files:
//
//   - build.go: the Builder, its cache and locks, Check and Program.
//   - rewrite.go: the rewriting of the block's code (print and println,
//     the context functions) before it is built.
//   - runner/: the program's side of the worker protocol (package runner).
package gobuild
