// Package isolate runs go and js blocks in a pool of warm worker
// processes, so that code which exhausts memory, overflows the stack,
// spins in a native call or crashes takes down a worker, not flowctl.
//
// A worker is the flowctl binary re-executed with [WorkerArg] as its first
// argument; its main function calls [Main]. It starts with an empty
// environment, confines itself before it reads a request (resource limits,
// Landlock, a seccomp filter; a new user and network namespace is set up
// when it is spawned), and then serves one call at a time: the parent
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
package isolate
