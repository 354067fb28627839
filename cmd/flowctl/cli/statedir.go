package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/project"
	"github.com/flowctl/flowctl/runtime/state"
)

// Where a project's state lives is package project's rule, which every
// entry point follows (docs/runtime.md, "Where the state lives").

// stateDirName is the name of a project's state directory.
const stateDirName = project.DirName

// stateHelp is the help of a command's --state flag.
const stateHelp = "the state directory, or a postgres:// URL (default: " + project.EnvState + ", else the project's .flowctl: the nearest from the working directory up to the top of its git repository, else the one at that top, else the working directory's)"

// stateIn is where the state of a command that works in base is
// (project.State).
func stateIn(given, base string) string { return project.State(given, base) }

// projectBase is the directory a command on the flow file (or
// directory) at path works in (project.Base).
func projectBase(path string) string { return project.Base(path, ".") }

// openRunState opens the state where runs are recorded (apply, plan,
// watch, serve, mcp, worker); when it makes the state directory, it says
// where on w, once (project.Made).
func openRunState(w io.Writer, dir string, o state.Options) (*state.Store, error) {
	made := !project.Exists(dir)
	st, err := openStateWith(dir, o)
	if err == nil && made {
		fmt.Fprintln(w, project.Made(dir))
	}
	return st, err
}

// warnOldState says where the runs of a flow are when a state next to the
// flow file is not the state in use: a .flowctl that an earlier flowctl
// made for each flow's directory, or one made by a command run in that
// directory outside a git repository. It says nothing when that is the
// state in use, or there is none.
func warnOldState(w io.Writer, flowFile, inUse string) {
	if state.IsURL(inUse) {
		return
	}
	old := filepath.Join(filepath.Dir(flowFile), stateDirName)
	if !dirExists(old) || samePath(old, inUse) {
		return
	}
	fmt.Fprintf(w, "Warning: %s, next to this flow, is a state other than the project's, which is %s: the runs, memory and cache in %s are not read. Read them with --state %s, or move that directory to %s when the project has no state yet (see docs/runtime.md, \"Where the state lives\").\n",
		old, inUse, old, old, inUse)
}

// warnOtherStates says, for serve DIR and mcp DIR, where the states next
// to the flows under dir are that are not the state in use (warnOldState):
// their runs are not listed.
func warnOtherStates(w io.Writer, dir, inUse string) {
	if state.IsURL(inUse) {
		return
	}
	flows, _ := findFiles([]string{dir}, lang.IsFlowFile)
	seen := map[string]bool{}
	for _, f := range flows {
		other := filepath.Join(filepath.Dir(f), stateDirName)
		if seen[other] || !dirExists(other) || samePath(other, inUse) {
			continue
		}
		seen[other] = true
		fmt.Fprintf(w, "Warning: %s, next to flows served here, is a state other than the project's, which is %s: its runs are not listed, nor its memory and cache used. Read them with --state %s, or move that directory to %s when the project has no state yet (see docs/runtime.md, \"Where the state lives\").\n",
			other, inUse, other, inUse)
	}
}

// samePath reports whether a and b name the same file.
func samePath(a, b string) bool {
	ia, errA := os.Stat(a)
	ib, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(ia, ib)
	}
	aa, _ := filepath.Abs(a)
	ab, _ := filepath.Abs(b)
	return aa == ab
}
