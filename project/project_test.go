package project

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
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

// TestFlows: the flows and block files under a directory, hidden
// directories skipped; a directory's one flow file; the programs of the
// flows under a directory, and none being an error.
func TestFlows(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	os.MkdirAll(filepath.Join(dir, DirName), 0o755)
	flow := func(name string) string { return "flow \"" + name + "\" {}\n" }
	os.WriteFile(filepath.Join(dir, "a.flow.hcl"), []byte(flow("a")), 0o644)
	os.WriteFile(filepath.Join(dir, "sub", "b.flow.hcl"), []byte(flow("b")), 0o644)
	os.WriteFile(filepath.Join(dir, DirName, "c.flow.hcl"), []byte(flow("c")), 0o644)
	os.WriteFile(filepath.Join(dir, "sub", "x.block.hcl"), []byte(""), 0o644)
	flows, blocks, diags := FindFlowsAndBlocks([]string{dir}, false)
	if diags.HasErrors() || len(flows) != 2 || len(blocks) != 1 {
		t.Errorf("FindFlowsAndBlocks = %q, %q, %v", flows, blocks, diags)
	}
	if _, diags := FlowPath(dir); diags.HasErrors() {
		t.Errorf("FlowPath of a directory with one flow: %v", diags)
	}
	progs, diags := CompileFlows(dir, compiler.Options{Parser: lang.NewParser()})
	if diags.HasErrors() || len(progs) != 2 || progs[0].Flow.Name != "a" || progs[1].Flow.Name != "b" {
		t.Errorf("CompileFlows: %d programs, %v", len(progs), diags)
	}
	if prog, diags := Compile(filepath.Join(dir, "sub"), compiler.Options{Parser: lang.NewParser(), Release: true}); diags.HasErrors() || prog.Flow.Name != "b" {
		t.Errorf("Compile of a directory with one flow: %v", diags)
	}
	if prog, diags := Compile(dir, compiler.Options{}); diags.HasErrors() || prog.Flow.Name != "a" {
		t.Errorf("Compile of a directory with one flow of its own: %v", diags)
	}
	empty := t.TempDir()
	if _, diags := FlowPath(empty); !diags.HasErrors() || diags[0].Summary != "No flow file" {
		t.Errorf("FlowPath of an empty directory: %v", diags)
	}
	if _, diags := CompileFlows(empty, compiler.Options{}); !diags.HasErrors() || diags[0].Summary != "No flow or block files" {
		t.Errorf("CompileFlows of an empty directory: %v", diags)
	}
}
