package server

import (
	"crypto/sha256"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/hashicorp/hcl/v2"
)

// flowSet is the flows under the server's directory, compiled, and
// compiled again when one of their files changes. A flow whose edit does
// not compile keeps its last good program, with the diagnostics of the
// edit.
type flowSet struct {
	dir        string
	registries []string
	goEngine   string

	mu      sync.Mutex
	byFile  map[string]*flowEntry // by flow file path
	checked time.Time
	// versions are the programs of the versions that runs taken up
	// started with, by hash (pinnedProgram).
	versions map[string]*compiler.Program
}

// flowEntry is one flow file, as one compilation left it: not changed
// once in the set (a change makes a new one).
type flowEntry struct {
	file  string
	prog  *compiler.Program    // the last good program; nil when none
	diags hcl.Diagnostics      // of the last compilation
	files map[string]*hcl.File // of the last compilation, for diagnostics
	sums  map[string][32]byte  // of every file the compilation read
}

// recheckEvery bounds how often the flows' files are looked at again.
const recheckEvery = 500 * time.Millisecond

// refresh compiles the flow files that are new or whose files changed,
// and forgets those that are gone.
func (fs *flowSet) refresh() {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if time.Since(fs.checked) < recheckEvery && fs.byFile != nil {
		return
	}
	fs.checked = time.Now()
	if fs.byFile == nil {
		fs.byFile = map[string]*flowEntry{}
	}
	found := flowFiles(fs.dir)
	seen := map[string]bool{}
	for _, f := range found {
		seen[f] = true
		e := fs.byFile[f]
		if e != nil && !e.changed() {
			continue
		}
		// A new entry, keeping the last good program: the entries handed
		// out (to requests, the scheduler) are never changed, so that
		// they may be read without the lock while a flow is compiled
		// again.
		next := &flowEntry{file: f}
		if e != nil {
			next.prog = e.prog
		}
		next.compile(fs.registries, fs.goEngine)
		fs.byFile[f] = next
	}
	for f := range fs.byFile {
		if !seen[f] {
			delete(fs.byFile, f)
		}
	}
}

// invalidate makes the next refresh look at the files at once: a change
// the server wrote (an accepted proposal) is served from the next request.
func (fs *flowSet) invalidate() {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.checked = time.Time{}
}

// changed reports whether a file the last compilation read is not what it
// was (by content: a save within the file system's timestamp granularity
// keeps the modification time).
func (e *flowEntry) changed() bool {
	for p, sum := range e.sums {
		if fileSum(p) != sum {
			return true
		}
	}
	return false
}

// fileSum is the SHA-256 of a file's content; zero when it cannot be read.
func fileSum(p string) [32]byte {
	b, err := os.ReadFile(p)
	if err != nil {
		return [32]byte{}
	}
	return sha256.Sum256(b)
}

func (e *flowEntry) compile(registries []string, goEngine string) {
	parser := lang.NewParser()
	prog, diags := compiler.Compile(e.file, compiler.Options{Parser: parser, RegistryDirs: registries, GoEngine: goEngine, Release: true})
	parser.Release() // the program keeps what it evaluates
	e.diags, e.files = diags, parser.Files()
	// What was parsed, not what the files hold now: a save during the
	// compilation is seen at the next look.
	e.sums = map[string][32]byte{e.file: {}}
	for name, f := range parser.Files() {
		e.sums[name] = sha256.Sum256(f.Bytes)
	}
	if !diags.HasErrors() {
		e.prog = prog
	}
}

// list is every flow, by name (a flow that never compiled by its file's
// base name).
func (fs *flowSet) list() []*flowEntry {
	fs.refresh()
	fs.mu.Lock()
	defer fs.mu.Unlock()
	out := make([]*flowEntry, 0, len(fs.byFile))
	for _, e := range fs.byFile {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name() < out[j].name() })
	return out
}

// get is the flow of a name.
func (fs *flowSet) get(name string) *flowEntry {
	for _, e := range fs.list() {
		if e.name() == name {
			return e
		}
	}
	return nil
}

func (e *flowEntry) name() string {
	if e.prog != nil {
		return e.prog.Flow.Name
	}
	return strings.TrimSuffix(filepath.Base(e.file), ".flow.hcl")
}

// flowFiles are the *.flow.hcl files under dir, hidden directories
// skipped.
func flowFiles(dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && p != dir && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if !d.IsDir() && lang.IsFlowFile(p) {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// pinnedProgram is the program of a version of the flow of file that a
// run started with (a run resumed keeps its version: runtime.
// PinnedVersion), compiled once per version.
func (fs *flowSet) pinnedProgram(file string, v *state.FlowVersion) (*compiler.Program, hcl.Diagnostics) {
	fs.mu.Lock()
	prog := fs.versions[v.Hash]
	fs.mu.Unlock()
	if prog != nil {
		return prog, nil
	}
	parser := lang.NewParser()
	parser.Pin(filepath.Dir(file), v.Files)
	prog, diags := compiler.Compile(file, compiler.Options{Parser: parser, RegistryDirs: fs.registries, GoEngine: fs.goEngine, Release: true})
	parser.Release()
	if diags.HasErrors() {
		return nil, diags
	}
	fs.mu.Lock()
	if fs.versions == nil {
		fs.versions = map[string]*compiler.Program{}
	}
	fs.versions[v.Hash] = prog
	fs.mu.Unlock()
	return prog, nil
}
