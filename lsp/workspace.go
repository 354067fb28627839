package lsp

import (
	"bytes"
	"github.com/flowctl/flowctl/project"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/hashicorp/hcl/v2"
)

// workspace holds the checks of the workspace's files: a flow compiled by
// the compiler, a test file checked against its flow, a block file on its
// own. A check is immutable once made and answers every request about its
// file until an edit of a file it read makes it stale; the next request
// (or the debounced diagnostics) makes a new one from the open documents
// and the files on disk. Checks run one at a time.
type workspace struct {
	s *Server

	mu     sync.Mutex // held while checking
	flows  map[string]*flowCheck
	tests  map[string]*testCheck
	blocks map[string]*blockCheck
	// lastGood is, per flow file, the last check of it whose file parsed:
	// completion while a line is half typed (and does not parse) answers
	// from it.
	lastGood map[string]*flowCheck

	// diags are the diagnostics of each check (by its file) per file they
	// are about; a file's published diagnostics are their union.
	diags     map[string]map[string]hcl.Diagnostics
	published map[string]bool

	index     []string // the workspace's flow, block and test files
	indexedAt time.Time

	stores map[string]*state.Store // by state directory; nil: none there
}

func newWorkspace(s *Server) *workspace {
	return &workspace{
		s: s, flows: map[string]*flowCheck{}, tests: map[string]*testCheck{}, blocks: map[string]*blockCheck{},
		lastGood: map[string]*flowCheck{}, diags: map[string]map[string]hcl.Diagnostics{}, published: map[string]bool{},
		stores: map[string]*state.Store{},
	}
}

func (w *workspace) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, st := range w.stores {
		if st != nil {
			st.Close()
		}
	}
	w.stores = map[string]*state.Store{}
}

// source says what a check read: the files, and the directories whose
// listing it depends on (a flow's blocks/, the flows of its directory).
type source struct {
	files map[string]string // path → stamp
	dirs  map[string]bool
	stale bool
}

// stamp identifies a file's content: an open document's version, else
// its size and modification time.
func (w *workspace) stamp(path string, overlay map[string]*document) string {
	if d := overlay[path]; d != nil {
		return "open " + strconv.Itoa(int(d.version)) + " " + strconv.Itoa(len(d.text.src))
	}
	info, err := os.Stat(path)
	if err != nil {
		return "missing"
	}
	return info.ModTime().String() + " " + strconv.Itoa(int(info.Size()))
}

func (src *source) fresh(w *workspace, overlay map[string]*document) bool {
	if src.stale {
		return false
	}
	for p, st := range src.files {
		if w.stamp(p, overlay) != st {
			return false
		}
	}
	return true
}

func (src *source) reads(path string) bool {
	_, ok := src.files[path]
	return ok || src.dirs[filepath.Dir(path)]
}

// invalidate marks stale the checks that read path.
func (w *workspace) invalidate(path string) {
	// Called with the server's lock held; checks hold w.mu, so the marks
	// are made by the next check (see fresh) when the lock is busy.
	if !w.mu.TryLock() {
		w.s.staleLater(path)
		return
	}
	defer w.mu.Unlock()
	w.invalidateLocked(path)
}

func (w *workspace) invalidateLocked(path string) {
	for _, c := range w.flows {
		if c.src.reads(path) {
			c.src.stale = true
		}
	}
	for _, c := range w.tests {
		if c.src.reads(path) {
			c.src.stale = true
		}
	}
	if c := w.blocks[path]; c != nil {
		c.src.stale = true
	}
	if !strings.HasSuffix(path, ".hcl") {
		return
	}
	for _, p := range w.index {
		if p == path {
			return
		}
	}
	w.indexedAt = time.Time{} // a new file: list the workspace again
}

// flowCheck is a flow file compiled.
type flowCheck struct {
	path  string
	prog  *compiler.Program
	diags hcl.Diagnostics
	files map[string]*hcl.File // every file the compilation read
	text  *text                // the flow file as compiled
	src   source
}

// parsed reports whether the flow file parsed (its program has what the
// file declares).
func (c *flowCheck) parsed() bool { return c.prog != nil && c.prog.File != nil }

// flow returns the check of the flow file at path, compiling it when
// there is none or it is stale.
func (w *workspace) flow(path string) *flowCheck {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.flowLocked(path, w.s.overlay())
}

func (w *workspace) flowLocked(path string, overlay map[string]*document) *flowCheck {
	w.s.applyStale(w)
	if c := w.flows[path]; c != nil && c.src.fresh(w, overlay) {
		return c
	}
	c := w.compileFlow(path, overlay)
	w.flows[path] = c
	if c.parsed() {
		w.lastGood[path] = c
	}
	return c
}

func (w *workspace) compileFlow(path string, overlay map[string]*document) *flowCheck {
	_, registries := w.s.config()
	dir := filepath.Dir(path)
	dirs := map[string]bool{dir: true, filepath.Join(dir, "blocks"): true}
	for _, r := range registries {
		dirs[r], dirs[filepath.Join(r, "blocks")] = true, true
	}
	parser := lang.NewParser()
	for p, d := range overlay {
		if dirs[filepath.Dir(p)] && p != path {
			parser.ParseSource(d.text.src, p)
		}
	}
	opts := compiler.Options{Parser: parser, RegistryDirs: registries}
	c := &flowCheck{path: path, src: source{files: map[string]string{}, dirs: dirs}}
	if d := overlay[path]; d != nil {
		opts.Source = d.text.src
	}
	var reads []string
	opts.OnFileRead = func(p string) { reads = append(reads, p) }
	c.prog, c.diags = compiler.Compile(path, opts)
	c.files = parser.Files()
	if f := c.files[path]; f != nil {
		c.text = newText(f.Bytes)
	} else {
		c.text = newText(nil)
	}
	for name := range c.files {
		c.src.files[name] = w.stamp(name, overlay)
	}
	for _, p := range reads {
		c.src.files[p] = w.stamp(p, overlay)
	}
	c.src.files[path] = w.stamp(path, overlay)
	return c
}

// testCheck is a test file checked against the flows its tests run.
type testCheck struct {
	path  string
	defs  []*lang.TestDef
	flows map[*lang.TestDef]*flowCheck
	diags hcl.Diagnostics
	file  *hcl.File
	text  *text
	src   source
}

func (w *workspace) test(path string) *testCheck {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.testLocked(path, w.s.overlay())
}

func (w *workspace) testLocked(path string, overlay map[string]*document) *testCheck {
	w.s.applyStale(w)
	if c := w.tests[path]; c != nil && c.src.fresh(w, overlay) {
		return c
	}
	c := &testCheck{path: path, flows: map[*lang.TestDef]*flowCheck{}, src: source{files: map[string]string{}, dirs: map[string]bool{filepath.Dir(path): true}}}
	parser := lang.NewParser()
	var f *hcl.File
	if d := overlay[path]; d != nil {
		f, c.diags = parser.ParseSource(d.text.src, path)
	} else {
		f, c.diags = parser.ParseFile(path)
	}
	c.src.files[path] = w.stamp(path, overlay)
	c.file = f
	if f != nil {
		c.text = newText(f.Bytes)
	} else {
		c.text = newText(nil)
	}
	if f != nil && !c.diags.HasErrors() {
		defs, d := lang.DecodeTestFile(f)
		c.defs = defs
		c.diags = append(c.diags, d...)
		for _, def := range defs {
			flow, d := testFlow(path, def)
			c.diags = append(c.diags, d...)
			if d.HasErrors() {
				continue
			}
			fc := w.flowLocked(flow, overlay)
			c.flows[def] = fc
			for p, st := range fc.src.files {
				c.src.files[p] = st
			}
			for p := range fc.src.dirs {
				c.src.dirs[p] = true
			}
			if fc.diags.HasErrors() {
				continue // the flow's own check reports them
			}
			_, d = compiler.CompileTest(fc.prog, def)
			c.diags = append(c.diags, d...)
		}
	}
	w.tests[path] = c
	return c
}

// evalDiags checks an eval file as validate does (compiler.CompileEval):
// its text as the editor has it, the flows and datasets as they are on
// disk.
func (w *workspace) evalDiags(path string, overlay map[string]*document) hcl.Diagnostics {
	parser := lang.NewParser()
	var f *hcl.File
	var diags hcl.Diagnostics
	if d := overlay[path]; d != nil {
		f, diags = parser.ParseSource(d.text.src, path)
	} else {
		f, diags = parser.ParseFile(path)
	}
	if f == nil || diags.HasErrors() {
		return diags
	}
	defs, d := lang.DecodeEvalFile(f)
	diags = append(diags, d...)
	_, registries := w.s.config()
	for _, def := range defs {
		_, d := compiler.CompileEval(def, compiler.Options{Parser: parser, RegistryDirs: registries, SkipCode: true})
		diags = append(diags, d...)
	}
	return diags
}

// testFlow is the flow file a test runs, absolute.
func testFlow(file string, def *lang.TestDef) (string, hcl.Diagnostics) {
	p, d := compiler.TestFlowFile(file, def)
	if d.HasErrors() {
		return "", d
	}
	return absolute(p), nil
}

// blockCheck is a block file checked on its own, as validate checks a
// block file that no flow loads.
type blockCheck struct {
	path  string
	defs  []*lang.BlockDef
	diags hcl.Diagnostics
	file  *hcl.File
	text  *text
	src   source
}

func (w *workspace) block(path string) *blockCheck {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.blockLocked(path, w.s.overlay())
}

func (w *workspace) blockLocked(path string, overlay map[string]*document) *blockCheck {
	w.s.applyStale(w)
	if c := w.blocks[path]; c != nil && c.src.fresh(w, overlay) {
		return c
	}
	c := &blockCheck{path: path, src: source{files: map[string]string{path: w.stamp(path, overlay)}}}
	parser := lang.NewParser()
	if d := overlay[path]; d != nil {
		parser.ParseSource(d.text.src, path)
	}
	c.defs, c.diags = blocks.ParseBlockFile(parser, path)
	c.file = parser.Files()[path]
	if c.file != nil {
		c.text = newText(c.file.Bytes)
	} else {
		c.text = newText(nil)
	}
	if !c.diags.HasErrors() {
		d := blocks.NewRegistry().AddDefs(c.defs)
		c.diags = append(c.diags, d...)
		if !d.HasErrors() {
			c.diags = append(c.diags, compiler.CheckCode(c.defs, "")...)
		}
	}
	w.blocks[path] = c
	return c
}

// files lists the workspace's flow, block and test files (cached for a
// few seconds; a new file resets it).
func (w *workspace) files() []string {
	if time.Since(w.indexedAt) < 5*time.Second {
		return w.index
	}
	root, registries := w.s.config()
	var out []string
	seen := map[string]bool{}
	for _, dir := range append([]string{root}, registries...) {
		if dir == "" {
			continue
		}
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() && p != dir && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			if !d.IsDir() && (lang.IsFlowFile(p) || lang.IsBlockFile(p) || lang.IsTestFile(p) || lang.IsEvalFile(p)) && !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
			return nil
		})
	}
	w.index, w.indexedAt = out, time.Now()
	return out
}

// dependents are the files to check again when path changed: the file,
// the flows that read it (a block file's, a sub-flow's parents), and the
// tests of those flows.
func (w *workspace) dependents(path string, overlay map[string]*document) []string {
	_, registries := w.s.config()
	set := map[string]bool{path: true}
	for p, c := range w.flows {
		if c.src.reads(path) {
			set[p] = true
		}
	}
	for p, c := range w.tests {
		if c.src.reads(path) {
			set[p] = true
		}
	}
	dir := filepath.Dir(path)
	inRegistry := false
	for _, r := range registries {
		if dir == r || dir == filepath.Join(r, "blocks") {
			inRegistry = true
		}
	}
	for _, p := range w.files() {
		pd := filepath.Dir(p)
		switch {
		case lang.IsBlockFile(path) && lang.IsFlowFile(p):
			// The flows whose blocks/ it is in, or every flow for a
			// registry's.
			if inRegistry || (filepath.Base(dir) == "blocks" && pd == filepath.Dir(dir)) {
				set[p] = true
			}
		case lang.IsFlowFile(path) && (lang.IsTestFile(p) || lang.IsEvalFile(p)) && pd == dir:
			set[p] = true
		case lang.IsFlowFile(path) && lang.IsFlowFile(p) && (pd == dir || inRegistry):
			if usesFlows(p, overlay) {
				set[p] = true // may use it as a sub-flow
			}
		}
	}
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	return out
}

// usesFlows reports whether a flow file mentions flow.NAME in a string
// or a tools list: whether it may use other flows.
func usesFlows(path string, overlay map[string]*document) bool {
	var src []byte
	if d := overlay[path]; d != nil {
		src = d.text.src
	} else {
		src, _ = os.ReadFile(path)
	}
	return bytes.Contains(src, []byte("flow."))
}

// store returns the state of the flow at path when one was recorded, nil
// otherwise: the state of the flow's project, found as the CLI finds it
// (project.State) with the workspace folder as the working directory. It
// never creates one.
func (w *workspace) store(flowPath string) *state.Store {
	root, _ := w.s.config()
	if root == "" {
		root = filepath.Dir(flowPath)
	}
	dir := project.State("", project.Base(flowPath, root))
	w.mu.Lock()
	defer w.mu.Unlock()
	if st, ok := w.stores[dir]; ok {
		return st
	}
	var st *state.Store
	var err error
	switch {
	case state.IsURL(dir):
		st, err = state.OpenURL(dir)
	case fileExists(filepath.Join(dir, state.FileName)):
		st, err = state.Open(dir)
	}
	if err != nil {
		w.s.log.Printf("reading the state in %s: %v", state.RedactURL(dir), err)
		st = nil
	}
	w.stores[dir] = st
	return st
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// filesLocked is files, taking the workspace's lock.
func (w *workspace) filesLocked() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.files()
}

// parsedFlow is the program of the flow at path, or while its file does
// not parse the last one that did: what completion answers from while a
// line is half typed.
func (w *workspace) parsedFlow(path string) *compiler.Program {
	w.mu.Lock()
	defer w.mu.Unlock()
	c := w.flowLocked(path, w.s.overlay())
	if !c.parsed() {
		if g := w.lastGood[path]; g != nil {
			return g.prog
		}
	}
	return c.prog
}
