//go:build !linux || !(amd64 || arm64)

package isolate

import (
	"errors"
	"os"
	"time"

	"github.com/flowctl/flowctl/blocks/sandbox/pyrun"
)

// confine has no confinement layers to apply on this system; the worker
// still runs code in a process of its own, under the parent's timeouts.
func confine(l limits) []string {
	return []string{"resource limits, Landlock and seccomp (not available on this system)"}
}

func cpuUsed() time.Duration { return 0 }

// confineForExec has nothing to apply either; the program runs as it is.
func confineForExec(l limits, program string) ([]string, int, string) {
	return confine(l), -1, ""
}

const seccompNr = 0

// pythonConfinement: there is nothing to confine a python worker with
// here (the pool refuses to start one unless it runs unconfined).
func pythonConfinement(l limits, w *pyrun.Worker) (pyrun.RunnerConfig, *os.File, error) {
	return pyrun.RunnerConfig{}, nil, errors.New("python workers cannot be confined on this system")
}

// confinable: nothing confines a worker on this system.
func confinable(python bool) []string { return unconfinableLayers }
