//go:build !linux || !cgo

package isolate

// selfUnshare: without cgo (or off Linux) a worker cannot make its own
// namespaces before the Go runtime starts its threads; on Linux the
// kernel makes them as it starts the worker (sysProcAttr).
const selfUnshare = false

const workerArgC = WorkerArg

func unshareMissing() string { return "" }
