package project

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/flowctl/flowctl/runtime/state"
)

// TestDir: the rule of where a project's state lives, for a base in a
// repository whose .git is a directory or, as in a worktree or a
// submodule, a file, and for a base in none.
func TestDir(t *testing.T) {
	for _, gitFile := range []bool{false, true} {
		top, _ := filepath.EvalSymlinks(t.TempDir())
		if gitFile {
			os.WriteFile(filepath.Join(top, ".git"), []byte("gitdir: /elsewhere/.git/worktrees/x\n"), 0o644)
		} else {
			os.Mkdir(filepath.Join(top, ".git"), 0o755)
		}
		sub := filepath.Join(top, "a", "b")
		os.MkdirAll(sub, 0o755)
		t.Chdir(sub)
		if got := RepositoryTop(sub); got != top {
			t.Errorf(".git file %v: RepositoryTop = %q, want %q", gitFile, got, top)
		}
		// No state yet: the top's, for the base and for the top itself.
		if got, want := Dir("."), filepath.Join("..", "..", DirName); got != want {
			t.Errorf(".git file %v: Dir(.) in a subdirectory = %q, want %q", gitFile, got, want)
		}
		if got, want := Dir(top), filepath.Join(top, DirName); got != want {
			t.Errorf(".git file %v: Dir(top) = %q, want %q", gitFile, got, want)
		}
		// A nearer .flowctl is the project's.
		os.Mkdir(filepath.Join(top, "a", DirName), 0o755)
		if got, want := Dir("."), filepath.Join("..", DirName); got != want {
			t.Errorf(".git file %v: Dir(.) with a/.flowctl = %q, want %q", gitFile, got, want)
		}
	}
	// Outside a repository: the base's own, whatever its parents hold.
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, DirName), 0o755)
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	t.Chdir(sub)
	if got := Dir("."); got != DirName {
		t.Errorf("Dir(.) outside a repository = %q, want %q", got, DirName)
	}
}

// TestState: --state, then FLOWCTL_STATE, then FLOWCTL_STATE_URL, then
// the project's.
func TestState(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv(EnvState, "")
	t.Setenv(EnvStateURL, "")
	if got := State("", "."); got != DirName {
		t.Errorf("State = %q", got)
	}
	t.Setenv(EnvStateURL, "postgres://x/y")
	if got := State("", "."); got != "postgres://x/y" {
		t.Errorf("State with %s = %q", EnvStateURL, got)
	}
	t.Setenv(EnvState, "/st")
	if got := State("", "."); got != "/st" {
		t.Errorf("State with %s = %q", EnvState, got)
	}
	if got := State("given", "."); got != "given" {
		t.Errorf("State given = %q", got)
	}
}

// TestBase: the working directory for a flow inside it, else the flow's
// directory.
func TestBase(t *testing.T) {
	wd := t.TempDir()
	os.MkdirAll(filepath.Join(wd, "sub"), 0o755)
	other := t.TempDir()
	if got := Base(filepath.Join(wd, "sub", "x.flow.hcl"), wd); got != wd {
		t.Errorf("Base inside = %q", got)
	}
	if got := Base(filepath.Join(other, "x.flow.hcl"), wd); got != other {
		t.Errorf("Base outside = %q", got)
	}
}

// TestOldStates: a .flowctl next to a flow is named when it is not the
// state in use, once for the flows beside it, and never when it is that
// state (by another path) or the state is a database.
func TestOldStates(t *testing.T) {
	top, _ := filepath.EvalSymlinks(t.TempDir())
	a, b := filepath.Join(top, "a"), filepath.Join(top, "b")
	for _, d := range []string{filepath.Join(a, DirName), filepath.Join(b, DirName), filepath.Join(top, DirName)} {
		os.MkdirAll(d, 0o755)
	}
	inUse := filepath.Join(top, DirName)
	if got := OldState(filepath.Join(a, "x.flow.hcl"), inUse); got != filepath.Join(a, DirName) {
		t.Errorf("OldState = %q", got)
	}
	t.Chdir(top)
	if got := OldState(filepath.Join(top, "x.flow.hcl"), DirName); got != "" {
		t.Errorf("the state in use, relative: OldState = %q", got)
	}
	if got := OldState(filepath.Join(a, "x.flow.hcl"), "postgres://db/x"); got != "" {
		t.Errorf("a database in use: OldState = %q", got)
	}
	flows := []string{filepath.Join(a, "1.flow.hcl"), filepath.Join(a, "2.flow.hcl"), filepath.Join(b, "3.flow.hcl"), filepath.Join(top, "4.flow.hcl")}
	got := OtherStates(flows, inUse)
	if len(got) != 2 || got[0] != filepath.Join(a, DirName) || got[1] != filepath.Join(b, DirName) {
		t.Errorf("OtherStates = %q", got)
	}
}

// TestOpen: opening a directory that is not there makes it, and says so
// once.
func TestOpen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), DirName)
	for i, want := range []bool{true, false} {
		st, made, err := Open(dir, state.Options{})
		if err != nil {
			t.Fatal(err)
		}
		st.Close()
		if made != want {
			t.Errorf("open %d: made %v, want %v", i+1, made, want)
		}
	}
}
