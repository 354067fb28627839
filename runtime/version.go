package runtime

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/hashicorp/hcl/v2"
)

// A run keeps the version of its flow it started with (compiler.Program.
// Version): the state stores its sources by content hash, once per hash,
// and a resumption runs that version (PinnedVersion) unless it upgrades
// the run to the flow as it is now.

// recordVersion records the version the run runs, with the git commit of
// the flow's directory, while the run goes on (the write joins the
// batches of its step results rather than wait alone), and returns what
// waits for it: the run's end waits, so that a run recorded as ended
// names its version. A version that could not be recorded is a warning:
// a resumption then uses the flow's files.
func (r *run) recordVersion() (wait func()) {
	st := r.opts.Store
	hash, files := r.prog.Version()
	if st == nil || hash == "" {
		return func() {}
	}
	done := make(chan error, 1)
	go func() {
		done <- st.SetRunVersion(r.id, &state.FlowVersion{Hash: hash, Files: files}, GitCommit(r.prog.Dir))
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			if err := <-done; err != nil {
				r.addDiags(hcl.Diagnostics{{Severity: hcl.DiagWarning, Summary: "Version not recorded",
					Detail: fmt.Sprintf("The version of the flow the run runs could not be recorded (%s): a resumption uses the flow's files as they are then.", trimDot(r.redact.redact(err.Error())))}})
			}
		})
	}
}

// PinnedVersion is the version of its flow a recorded run runs, to resume
// it with: nil when it recorded none (it started before versions were
// kept) or its sources are gone (pruned).
func PinnedVersion(st *state.Store, runID string) (*state.FlowVersion, error) {
	rv, err := st.RunVersion(runID)
	if err != nil || rv == nil {
		return nil, err
	}
	return st.FlowVersion(rv.Hash)
}

// GitCommit is the commit checked out in the git repository dir is in
// (its HEAD), read from .git without running git; "" outside a
// repository or when it cannot be read. A worktree's .git file and packed
// refs are followed.
func GitCommit(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for d := abs; ; d = filepath.Dir(d) {
		if gitDir := gitDirOf(filepath.Join(d, ".git")); gitDir != "" {
			return headCommit(gitDir)
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// gitDirOf is the git directory a .git entry names: itself when it is a
// directory, the path after "gitdir: " when it is a file (a worktree).
func gitDirOf(dotGit string) string {
	info, err := os.Stat(dotGit)
	switch {
	case err != nil:
		return ""
	case info.IsDir():
		return dotGit
	}
	b, err := os.ReadFile(dotGit)
	if err != nil {
		return ""
	}
	rest, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
	if !ok {
		return ""
	}
	if !filepath.IsAbs(rest) {
		rest = filepath.Join(filepath.Dir(dotGit), rest)
	}
	return rest
}

func headCommit(gitDir string) string {
	head, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return ""
	}
	ref, ok := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: ")
	if !ok {
		return commitHash(string(head))
	}
	// A worktree's branches are in the repository's common directory.
	dirs := []string{gitDir}
	if c, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		common := strings.TrimSpace(string(c))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitDir, common)
		}
		dirs = append(dirs, common)
	}
	for _, d := range dirs {
		if b, err := os.ReadFile(filepath.Join(d, filepath.FromSlash(ref))); err == nil {
			return commitHash(string(b))
		}
	}
	for _, d := range dirs {
		packed, err := os.ReadFile(filepath.Join(d, "packed-refs"))
		if err != nil {
			continue
		}
		for line := range bytes.Lines(packed) {
			if h, name, ok := strings.Cut(strings.TrimSpace(string(line)), " "); ok && name == ref {
				return commitHash(h)
			}
		}
	}
	return ""
}

// commitHash is s when it is a commit's hash (40 or 64 hex digits).
func commitHash(s string) string {
	s = strings.TrimSpace(s)
	if len(s) != 40 && len(s) != 64 {
		return ""
	}
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return ""
		}
	}
	return s
}

// PinResume pins parser (lang.Parser.Pin) to the version of its flow that
// run started with, to resume it with, unless upgrade (--upgrade: the
// flow as it is now). file is the flow file the resumption compiles,
// whose directory the version's files are of. It returns the run's
// version when the parser is pinned and the files changed since (what to
// tell the user); nil otherwise.
func PinResume(parser *lang.Parser, st *state.Store, runID, file string, upgrade bool) (*state.RunVersion, error) {
	if upgrade {
		return nil, nil
	}
	rv, err := st.RunVersion(runID)
	if err != nil || rv == nil {
		return nil, err
	}
	v, err := st.FlowVersion(rv.Hash)
	if err != nil || v == nil {
		return nil, err
	}
	dir := file
	if info, err := os.Stat(file); err != nil || !info.IsDir() {
		dir = filepath.Dir(file)
	}
	parser.Pin(dir, v.Files)
	if !changedSince(dir, v.Files) {
		return nil, nil
	}
	return rv, nil
}

// changedSince reports whether the files under dir differ from a
// version's: one of them changed or is gone, or a block file was added.
func changedSince(dir string, files map[string][]byte) bool {
	for rel, src := range files {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil || !bytes.Equal(b, src) {
			return true
		}
	}
	found, _ := filepath.Glob(filepath.Join(dir, "blocks", "*.block.hcl"))
	for _, path := range found {
		if rel, err := filepath.Rel(dir, path); err == nil && files[filepath.ToSlash(rel)] == nil {
			return true
		}
	}
	return false
}
