// Package project finds where a project's state lives, by one rule that
// every entry point follows: the CLI's commands, serve, mcp, worker and
// the language server's code lenses (docs/runtime.md, "Where the state
// lives").
//
//  1. the state given (--state), else FLOWCTL_STATE, else
//     FLOWCTL_STATE_URL (its older name, kept for a database URL);
//  2. else the project's .flowctl. The project is a directory, the base:
//     the working directory, or for a flow outside it the flow's
//     directory (serve, mcp and worker: their DIR). Its state is the
//     nearest .flowctl from the base up to the top of the git repository
//     the base is in, as git finds its repository from a subdirectory;
//     when there is none, the .flowctl at the repository's top; when the
//     base is in no repository, the base's own .flowctl.
//
// The search stops at the repository's top so that no .flowctl of an
// unrelated parent directory (a home directory, /tmp) is taken for the
// project's: outside a repository only the base counts, as for
// Terraform's working directory. Inside one, a first state is made at the
// top, where git keeps the repository's own metadata, so that a command
// in any subdirectory, serve at the top and the editor all find it.
package project

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/flowctl/flowctl/runtime/state"
)

// DirName is the name of a project's state directory.
const DirName = ".flowctl"

// Environment variables that name the state of every command.
const (
	EnvState    = "FLOWCTL_STATE"
	EnvStateURL = "FLOWCTL_STATE_URL"
)

// State is where the state of a command that works in base is: given
// (--state) when set, else FLOWCTL_STATE or FLOWCTL_STATE_URL, else the
// project's .flowctl (Dir).
func State(given, base string) string {
	if given != "" {
		return given
	}
	if env := FromEnv(); env != "" {
		return env
	}
	return Dir(base)
}

// FromEnv is the state the environment names: FLOWCTL_STATE, else
// FLOWCTL_STATE_URL; "" when neither is set.
func FromEnv() string {
	for _, env := range []string{EnvState, EnvStateURL} {
		if v := os.Getenv(env); v != "" {
			return v
		}
	}
	return ""
}

// Base is the directory a command on the flow file (or directory) at
// path works in, from the working directory wd ("" or "." for the
// process's): wd when the flow is inside it, else the flow's own
// directory.
func Base(path, wd string) string {
	dir := path
	if info, err := os.Stat(path); err != nil || !info.IsDir() {
		dir = filepath.Dir(path)
	}
	if wd == "" {
		wd = "."
	}
	absWD, err := filepath.Abs(wd)
	if err != nil {
		return dir
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir
	}
	if inside(absWD, abs) {
		return wd
	}
	return dir
}

// inside reports whether path is dir or under it.
func inside(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// Dir is the project's .flowctl for a base directory: the nearest one
// from base up to the top of base's git repository, else the one at that
// top, else (outside a repository) base's own. A state elsewhere than
// base is given relative to the working directory when that is shorter.
func Dir(base string) string {
	own := filepath.Join(base, DirName)
	abs, err := filepath.Abs(base)
	if err != nil {
		return own
	}
	top := RepositoryTop(abs)
	if top == "" {
		return own
	}
	for d := abs; ; d = filepath.Dir(d) {
		if isDir(filepath.Join(d, DirName)) {
			if d == abs {
				return own
			}
			return shortPath(filepath.Join(d, DirName))
		}
		if d == top || d == filepath.Dir(d) {
			break
		}
	}
	if top == abs {
		return own
	}
	return shortPath(filepath.Join(top, DirName))
}

// RepositoryTop is the top directory of the git repository dir is in:
// the nearest directory from dir up that holds .git, a directory or, in
// a worktree or submodule, a file; "" when it is in none.
func RepositoryTop(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for d := abs; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if d == filepath.Dir(d) {
			return ""
		}
	}
}

// Made is what a command says, once, when it has made the state dir (a
// directory that did not exist): where it is and why there.
func Made(dir string) string {
	where := ""
	if abs, err := filepath.Abs(dir); err == nil {
		if parent := filepath.Dir(abs); RepositoryTop(parent) == parent {
			where = " at the top of the git repository " + parent
		}
	}
	whose := "the project's state "
	if filepath.Base(dir) != DirName {
		whose = "the state " // named by --state or FLOWCTL_STATE
	}
	return "Made " + whose + dir + where + ": flowctl records and reads the runs, memory and cache of its flows there (git ignores it: " +
		filepath.Join(dir, ".gitignore") + "; docs/runtime.md, \"Where the state lives\")."
}

// Exists reports whether the state dir names is there: a database URL,
// or a directory that exists.
func Exists(dir string) bool {
	return state.IsURL(dir) || isDir(dir)
}

func isDir(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.IsDir()
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

// Open opens the state dir names: the PostgreSQL database of a
// postgres:// URL, with o, or a directory, made when it is not there
// (made says so, for the command to say where, once: Made).
func Open(dir string, o state.Options) (st *state.Store, made bool, err error) {
	if state.IsURL(dir) {
		st, err = state.OpenURLWith(dir, o)
		return st, false, err
	}
	made = !isDir(dir)
	st, err = state.Open(dir)
	return st, made && err == nil, err
}

// OldState is the state next to a flow file that is not the state in
// use, inUse: a .flowctl that an earlier flowctl made for each flow's
// directory, or one made by a command run in that directory outside a
// git repository. It is "" when that is the state in use, or there is
// none.
func OldState(flowFile, inUse string) string {
	if state.IsURL(inUse) {
		return ""
	}
	old := filepath.Join(filepath.Dir(flowFile), DirName)
	if !isDir(old) || SamePath(old, inUse) {
		return ""
	}
	return old
}

// OtherStates are the states next to the flow files flows (those under
// the directory serve or mcp serves) that are not the state in use
// (OldState), each once.
func OtherStates(flows []string, inUse string) []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range flows {
		other := OldState(f, inUse)
		if other == "" || seen[other] {
			continue
		}
		seen[other] = true
		out = append(out, other)
	}
	return out
}

// SamePath reports whether a and b name the same file.
func SamePath(a, b string) bool {
	ia, errA := os.Stat(a)
	ib, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(ia, ib)
	}
	aa, _ := filepath.Abs(a)
	ab, _ := filepath.Abs(b)
	return aa == ab
}
