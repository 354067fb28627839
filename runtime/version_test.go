package runtime

import (
	"os"
	"path/filepath"
	"testing"
)

// TestGitCommit: the commit checked out is read from .git without git: a
// branch's ref file, a packed ref, a detached HEAD, a worktree's .git
// file; none outside a repository.
func TestGitCommit(t *testing.T) {
	const a, b = "1111111111111111111111111111111111111111", "2222222222222222222222222222222222222222"
	root := t.TempDir()
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("repo/.git/HEAD", "ref: refs/heads/main\n")
	write("repo/.git/refs/heads/main", a+"\n")
	write("repo/flows/x.flow.hcl", "")
	if got := GitCommit(filepath.Join(root, "repo", "flows")); got != a {
		t.Errorf("a branch: %q", got)
	}
	os.Remove(filepath.Join(root, "repo/.git/refs/heads/main"))
	write("repo/.git/packed-refs", "# pack-refs with: peeled fully-peeled sorted\n"+b+" refs/heads/main\n")
	if got := GitCommit(filepath.Join(root, "repo")); got != b {
		t.Errorf("a packed ref: %q", got)
	}
	write("repo/.git/worktrees/wt/HEAD", a+"\n")
	write("repo/.git/worktrees/wt/commondir", "../..\n")
	write("wt/.git", "gitdir: "+filepath.Join(root, "repo/.git/worktrees/wt")+"\n")
	if got := GitCommit(filepath.Join(root, "wt")); got != a {
		t.Errorf("a worktree, detached: %q", got)
	}
	write("wt2/.git", "gitdir: ../repo/.git/worktrees/wt2\n")
	write("repo/.git/worktrees/wt2/HEAD", "ref: refs/heads/main\n")
	write("repo/.git/worktrees/wt2/commondir", "../..\n")
	if got := GitCommit(filepath.Join(root, "wt2")); got != b {
		t.Errorf("a worktree on a branch of the repository: %q", got)
	}
	if got := GitCommit(t.TempDir()); got != "" {
		t.Errorf("outside a repository: %q", got)
	}
}
