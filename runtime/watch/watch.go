package watch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/event"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/fsnotify/fsnotify"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// DefaultDebounce is how long the loop waits after a change for the
// writes of one save to settle (editors write a swap file, rename, then
// write again).
const DefaultDebounce = 20 * time.Millisecond

// Options configure a watch session.
type Options struct {
	FlowFile     string
	RegistryDirs []string
	// GoEngine, when set, is the engine every go block runs with
	// (--go-engine); the executors must agree.
	GoEngine string
	// Inputs are the given input values; they are resolved against each
	// new compilation.
	Inputs    map[string]compiler.InputValue
	Secrets   map[string]string
	Namespace string
	// NoCache turns off reuse: every step runs in every cycle.
	NoCache bool
	// ResetCorruptMemory: see runtime.Options.
	ResetCorruptMemory bool
	Parallelism        int
	// Targets and Timeout: see runtime.Options.
	Targets   []string
	Timeout   time.Duration
	Store     *state.Store
	Executors *blocks.Executors
	Debounce  time.Duration // DefaultDebounce when 0
	// Observe receives the session's events one at a time: CycleStarted,
	// the runtime's events (runtime.Event), CycleFinished.
	Observe func(event any)
}

// The session's own events, around each cycle's runtime events (package
// runtime/event).
type (
	CycleStarted  = event.CycleStarted
	CycleFinished = event.CycleFinished
)

// Run runs the loop until ctx is cancelled. It returns an error only when
// the files cannot be watched at all.
func Run(ctx context.Context, opts Options) error {
	if opts.Debounce <= 0 {
		opts.Debounce = DefaultDebounce
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer fw.Close()
	s := &session{opts: opts, fw: fw, watched: map[string]bool{}}
	obs := opts.Observe
	var mu sync.Mutex
	s.observe = func(e any) {
		if obs == nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		obs(e)
	}
	return s.loop(ctx)
}

type session struct {
	opts    Options
	fw      *fsnotify.Watcher
	observe func(any)

	cycle int

	mu      sync.Mutex      // the cycle's goroutine updates these; the loop reads them
	files   map[string]bool // the files the flow depends on
	dirs    map[string]bool // directories where new block files count
	watched map[string]bool // directories under watch
	good    map[string]cty.Value
	hasGood bool
}

func (s *session) loop(ctx context.Context) error {
	var changed []string
	for {
		cycleCtx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func(changed []string) {
			defer close(done)
			s.runCycle(cycleCtx, changed)
		}(changed)
		// Until the writes of a save settle: a change cancels a running
		// cycle, and the next one starts after the debounce.
		var pending []string
		var settle <-chan time.Time
		running := done
	wait:
		for {
			select {
			case <-ctx.Done():
				cancel()
				<-done
				return nil
			case <-running:
				running = nil // the cycle ended; keep waiting for changes
			case ev, ok := <-s.fw.Events:
				if !ok {
					cancel()
					<-done
					return errors.New("the file watcher stopped")
				}
				if p, ok := s.relevant(ev); ok {
					pending = append(pending, p)
					settle = time.After(s.opts.Debounce)
				}
			case <-s.fw.Errors:
				// Events were lost: recompile, which looks at every file.
				pending = append(pending, s.opts.FlowFile)
				settle = time.After(s.opts.Debounce)
			case <-settle:
				cancel()
				<-done
				changed = dedupe(pending)
				break wait
			}
		}
	}
}

// relevant reports whether an event touches a file the flow depends on, or
// adds a block file where the registry looks.
func (s *session) relevant(ev fsnotify.Event) (string, bool) {
	if ev.Op == fsnotify.Chmod {
		return "", false
	}
	p := filepath.Clean(ev.Name)
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.files[p] {
		return p, true
	}
	if lang.IsBlockFile(p) && s.dirs[filepath.Dir(p)] {
		return p, true
	}
	if s.dirs[p] && ev.Op&fsnotify.Create != 0 { // blocks/ appeared
		return p, true
	}
	return "", false
}

func (s *session) runCycle(ctx context.Context, changed []string) {
	s.cycle++
	start := time.Now()
	s.observe(CycleStarted{Time: start, Cycle: s.cycle, Changed: changed})
	fin := CycleFinished{Cycle: s.cycle}
	defer func() {
		fin.Time = time.Now()
		fin.Duration = fin.Time.Sub(start)
		if fin.Outputs == nil && s.hasGood {
			fin.Outputs = s.good
		}
		s.observe(fin)
	}()

	// Everything the flow depends on, gathered while compiling and running.
	var readMu sync.Mutex
	files := map[string]bool{}
	touch := func(p string) {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		readMu.Lock()
		files[filepath.Clean(p)] = true
		readMu.Unlock()
	}
	parser := lang.NewParser()
	prog, diags := compiler.Compile(s.opts.FlowFile, compiler.Options{
		Parser: parser, RegistryDirs: s.opts.RegistryDirs, OnFileRead: touch, GoEngine: s.opts.GoEngine, Release: true,
		Build: true, // a saved compiled block's errors are diagnostics at its lines
	})
	parser.Release() // the program keeps what it evaluates
	fin.Files = parser.Files()
	touch(s.opts.FlowFile)
	for name := range parser.Files() {
		touch(name)
	}
	dirs := map[string]bool{}
	for _, d := range append([]string{filepath.Join(filepath.Dir(s.opts.FlowFile), "blocks")}, s.opts.RegistryDirs...) {
		if abs, err := filepath.Abs(d); err == nil {
			dirs[abs] = true
		}
	}
	if prog != nil && prog.Registry != nil {
		for _, b := range prog.Registry.All() {
			if b.Def != nil && b.Def.SourceFile != "" {
				touch(b.Def.SourceRange.Filename)
			}
		}
	}
	snapshot := func() map[string]bool {
		readMu.Lock()
		defer readMu.Unlock()
		c := make(map[string]bool, len(files))
		for f := range files {
			c[f] = true
		}
		return c
	}
	// Watch what compiling read now, and all the cycle read at the end.
	s.updateWatches(snapshot(), dirs, false)
	defer func() { s.updateWatches(snapshot(), dirs, true) }()
	if diags.HasErrors() {
		fin.Status, fin.Diagnostics = "invalid", diags
		return
	}
	inputs, d := prog.ResolveInputs(s.opts.Inputs)
	if d.HasErrors() {
		fin.Status, fin.Diagnostics = "invalid", d
		return
	}
	res, err := runtime.Apply(ctx, prog, runtime.Options{
		Inputs: inputs, Secrets: s.opts.Secrets, Namespace: s.opts.Namespace, Parallelism: s.opts.Parallelism,
		NoCache: s.opts.NoCache, CacheAll: !s.opts.NoCache, Store: s.opts.Store, Executors: s.opts.Executors,
		OnFileRead: touch, ResetCorruptMemory: s.opts.ResetCorruptMemory,
		Targets: s.opts.Targets, Timeout: s.opts.Timeout,
		Observe: func(e runtime.Event) {
			if f, ok := e.(runtime.StepFinished); ok {
				switch f.Status {
				case runtime.StatusOK, runtime.StatusFailed:
					fin.Ran++
				case runtime.StatusCached:
					fin.Cached++
				}
			}
			s.observe(e)
		},
	})
	if err != nil {
		fin.Status = "failed"
		fin.Diagnostics = hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Run not recorded", Detail: err.Error()}}
		return
	}
	fin.Status, fin.Diagnostics = string(res.Status), res.Diagnostics
	if res.Status != runtime.StatusOK {
		return
	}
	fin.Outputs = res.Outputs
	if s.hasGood {
		fin.ChangedOutputs = changedOutputs(s.good, res.Outputs)
	}
	s.good, s.hasGood = res.Outputs, true
}

// updateWatches watches the directories of the files the flow depends on
// and the directories where block files are looked for (or, while those do
// not exist, their parents); with prune it stops watching the others.
func (s *session) updateWatches(files, dirs map[string]bool, prune bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	want := map[string]bool{}
	for f := range files {
		want[filepath.Dir(f)] = true
	}
	for d := range dirs {
		if info, err := os.Stat(d); err == nil && info.IsDir() {
			want[d] = true
		} else {
			want[filepath.Dir(d)] = true
		}
	}
	for d := range want {
		if !s.watched[d] {
			if err := s.fw.Add(d); err == nil {
				s.watched[d] = true
			}
		}
	}
	if !prune {
		for f := range s.files {
			files[f] = true
		}
	} else {
		for d := range s.watched {
			if !want[d] {
				s.fw.Remove(d)
				delete(s.watched, d)
			}
		}
	}
	s.files, s.dirs = files, dirs
}

func changedOutputs(before, after map[string]cty.Value) []string {
	var out []string
	for name, v := range after {
		old, ok := before[name]
		if !ok || !sameValue(old, v) {
			out = append(out, name)
		}
	}
	for name := range before {
		if _, ok := after[name]; !ok {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

func sameValue(a, b cty.Value) bool {
	ua, _ := a.UnmarkDeep()
	ub, _ := b.UnmarkDeep()
	if !ua.Type().Equals(ub.Type()) {
		return false
	}
	return ua.RawEquals(ub)
}

func dedupe(paths []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range paths {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}
