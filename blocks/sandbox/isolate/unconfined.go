package isolate

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
)

// EnvUnconfined, set to 1, runs python and compiled go blocks on a system
// where their workers cannot be confined (as --unconfined does).
const EnvUnconfined = "FLOWCTL_UNCONFINED"

// unconfinableLayers are the layers of a confined worker, which a system
// without them lacks.
var unconfinableLayers = []string{
	"seccomp system call filter", "Landlock file rules", "network namespace",
	"resource limits (memory, CPU time, open files)",
}

// unconfined is what a worker run unconfined goes without.
var unconfined = []string{"any confinement (--unconfined): its code can use your files, network and processes"}

// envForceUnconfinable, in a test binary, makes the pool take this system
// for one where workers cannot be confined, so that the refusal and
// --unconfined are tested on Linux. A flowctl binary ignores it.
const envForceUnconfinable = "FLOWCTL_TEST_UNCONFINABLE"

func forcedUnconfinable() bool {
	return testing.Testing() && os.Getenv(envForceUnconfinable) == "1"
}

// Platform is the system flowctl runs on, as messages name it: "linux/amd64".
func Platform() string { return runtime.GOOS + "/" + runtime.GOARCH }

// Unconfinable lists the confinement layers workers of python and
// compiled go blocks cannot have on this system, which the pool refuses to
// run them without unless Options.Unconfined is set; nil when they can be
// confined.
func Unconfinable() []string { return confinable(true) }

// UnconfinableCode lists the confinement layers the workers of python
// blocks (python) or of compiled go blocks cannot have on this system;
// nil when they can be confined.
func UnconfinableCode(python bool) []string { return confinable(python) }

// unconfinableError is the error of a python or compiled go block that
// cannot be confined here.
func unconfinableError(name, what string, missing []string) error {
	return fmt.Errorf("block %q was not run: %s run only in confined sandbox workers, and flowctl cannot confine them on %s (it has no %s here); run with --unconfined (or %s=1) to run them anyway, with your user's access to files, the network and processes",
		name, what, Platform(), JoinOr(missing), EnvUnconfined)
}

// JoinOr joins "a", "b" and "c" as "a, b or c".
func JoinOr(items []string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}
