// Package runner is what a compiled go block's program adds to the block's
// code: it confines the process before the block's package is initialized,
// speaks the sandbox worker protocol on file descriptors 3 and 4, runs
// Execute for each request, and gives the block print and println that
// write to the call's log.
//
// Package gobuild copies this package's source into every program it
// builds, so it imports the standard library only, and the program needs
// no module download. Its messages are those of package isolate's
// protocol.
//
// What enters: the worker's command line (its memory, CPU and stack
// limits, the file descriptor of /proc/self/status opened before exec, the
// seccomp filter to install and the confinement layers the worker already
// went without), then one request per line on file descriptor 3: the
// call's id, its inputs as JSON, decoded with encoding/json into the
// map[string]any Execute receives, and its timeout. What leaves, on file
// descriptor 4: a hello, the call's log lines, and one reply per request
// carrying an Outcome — each output encoded with encoding/json, or why it
// could not be, the error Execute returned, or the panic and the line of
// the block's code where it happened. flowctl turns the Outcome into the
// call's result as it does the interpreter's (gorun.Finish). A call that
// outlives its deadline is answered with a timeout and the process exits.
//
// The files:
//
//   - confine.go, confine_linux.go: the confinement applied in init.
//   - runner.go: Serve, the requests and replies, the call's log.
//
// The context functions the block's calls are rewritten to are package
// gorun/wrap/contextcheck's, which is copied into the program beside it.
package runner
