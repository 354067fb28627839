package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/flowctl/flowctl/runtime/state"
)

// Where a project's state lives (docs/runtime.md, "Where the state
// lives"), one rule for every command:
//
//  1. --state, else FLOWCTL_STATE, else FLOWCTL_STATE_URL (its older name,
//     kept for a database URL);
//  2. else the project's .flowctl. The project is a directory, the base:
//     the working directory, or for a flow outside it the flow's
//     directory (serve, mcp and worker: their DIR). Its state is the
//     nearest .flowctl from the base up to the top of the git repository
//     the base is in, as git finds its repository from a subdirectory;
//     when there is none, or the base is in no repository, it is the
//     base's own .flowctl, made when a run is first recorded.
//
// The search stops at the repository's top so that no .flowctl of an
// unrelated parent directory (a home directory, /tmp) is taken for the
// project's: outside a repository only the base counts, as for
// Terraform's working directory.

// stateDirName is the name of a project's state directory.
const stateDirName = ".flowctl"

// Environment variables that name the state of every command.
const (
	envState    = "FLOWCTL_STATE"
	envStateURL = "FLOWCTL_STATE_URL"
)

// stateHelp is the help of a command's --state flag.
const stateHelp = "the state directory, or a postgres:// URL (default: " + envState + ", else the project's .flowctl: the nearest from the working directory up to the top of its git repository, else the working directory's)"

// stateIn is where the state of a command that works in base is: given
// (--state) when set, else FLOWCTL_STATE or FLOWCTL_STATE_URL, else the
// project's .flowctl (projectState).
func stateIn(given, base string) string {
	if given != "" {
		return given
	}
	for _, env := range []string{envState, envStateURL} {
		if v := os.Getenv(env); v != "" {
			return v
		}
	}
	return projectState(base)
}

// projectBase is the directory a command on the flow file (or
// directory) at path works in: the working directory when the flow is
// inside it, else the flow's own directory.
func projectBase(path string) string {
	dir := path
	if info, err := os.Stat(path); err != nil || !info.IsDir() {
		dir = filepath.Dir(path)
	}
	wd, err := os.Getwd()
	if err != nil {
		return dir
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir
	}
	if rel, err := filepath.Rel(wd, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "."
	}
	return dir
}

// projectState is the project's .flowctl for a base directory: the
// nearest one from base up to the top of base's git repository, else
// base's own. A state found above base is given relative to the working
// directory when it can be.
func projectState(base string) string {
	own := filepath.Join(base, stateDirName)
	abs, err := filepath.Abs(base)
	if err != nil {
		return own
	}
	top := repositoryTop(abs)
	if top == "" {
		return own
	}
	for d := abs; ; d = filepath.Dir(d) {
		if dirExists(filepath.Join(d, stateDirName)) {
			if d == abs {
				return own
			}
			return shortPath(filepath.Join(d, stateDirName))
		}
		if d == top || d == filepath.Dir(d) {
			return own
		}
	}
}

// repositoryTop is the top directory of the git repository dir is in (the
// one holding .git, a directory or, in a worktree or submodule, a file);
// "" when it is in none.
func repositoryTop(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if d == filepath.Dir(d) {
			return ""
		}
	}
}

// shortPath is path relative to the working directory when that is
// shorter to read (../.flowctl), else as it is.
func shortPath(path string) string {
	wd, err := os.Getwd()
	if err != nil {
		return path
	}
	if rel, err := filepath.Rel(wd, path); err == nil && len(rel) < len(path) {
		return rel
	}
	return path
}

// warnOldState says where the runs of a flow recorded before the state
// moved to the project are: in a .flowctl next to the flow file, which
// flowctl used to make for each flow's directory. It says nothing when
// that is the state in use, or there is none.
func warnOldState(w io.Writer, flowFile, inUse string) {
	if state.IsURL(inUse) {
		return
	}
	old := filepath.Join(filepath.Dir(flowFile), stateDirName)
	if !dirExists(old) || samePath(old, inUse) {
		return
	}
	fmt.Fprintf(w, "Warning: %s holds the state flowctl kept next to this flow before it kept one state for each project; the state in use is %s. Its runs, memory and cache are not read from there: read them with --state %s, or move that directory to %s when the project has no state yet (see docs/runtime.md, \"Where the state lives\").\n",
		old, inUse, old, inUse)
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
