// Package watch is the dev loop of flowctl watch: it compiles and applies a
// flow, then watches every file the flow depends on — the flow file, its
// block files, source files and the files read with file() or the file
// block — and on each save compiles and applies it again. Within a watch
// session every step is cacheable, so only the steps whose inputs or
// definitions changed run again.
//
// The loop reports what happens as events: CycleStarted, the runtime's
// events of the cycle's apply, and CycleFinished. Package cli renders them.
package watch
