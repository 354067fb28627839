package temporal

import (
	"fmt"
	"log/slog"
	"strings"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/state"
	"go.temporal.io/sdk/temporal"
)

// A worker's programs: every flow in the version its files have now
// (current), and the versions it loaded before, kept while runs of them
// are unfinished — a run is interpreted, to its end, by the version it
// started with (its RunInput's SourceHash), whatever happens to the files
// meanwhile.
//
// A run of a version the worker does not have (its flow was edited, or
// added, since the worker loaded it) makes the worker load its flows
// again (Options.Reload) before it refuses the run: a worker on the
// machine where the files are edited takes up a new version by itself,
// and a worker elsewhere once the files are deployed to it.
type programs struct {
	current  map[string]*compiler.Program            // by flow name
	versions map[string]map[string]*compiler.Program // by flow name, then source hash
}

func newPrograms() *programs {
	return &programs{current: map[string]*compiler.Program{}, versions: map[string]map[string]*compiler.Program{}}
}

// set makes progs the current versions, keeping the others; it returns
// an error, and changes nothing, when two of them declare one flow.
func (ps *programs) set(progs []*compiler.Program) (changed []string, err error) {
	seen := map[string]*compiler.Program{}
	for _, p := range progs {
		if other := seen[p.Flow.Name]; other != nil {
			return nil, fmt.Errorf("flow %q is declared by both %s and %s", p.Flow.Name, other.Filename, p.Filename)
		}
		seen[p.Flow.Name] = p
	}
	for _, p := range progs {
		name := p.Flow.Name
		if old := ps.current[name]; old == nil || old.SourceHash != p.SourceHash {
			changed = append(changed, name)
		}
		ps.current[name] = p
		if ps.versions[name] == nil {
			ps.versions[name] = map[string]*compiler.Program{}
		}
		if ps.versions[name][p.SourceHash] == nil {
			ps.versions[name][p.SourceHash] = p
		}
	}
	return changed, nil
}

// get is the version hash of flow; nil when the worker does not have it.
func (ps *programs) get(flow, hash string) *compiler.Program { return ps.versions[flow][hash] }

// program is the worker's program of a flow at the run's source hash.
// When it has none, it loads the flows again once and looks again; a
// worker that still has none refuses the run (an error that fails it),
// and logs why when log is set (a workflow replayed for a query does
// not log again).
func (e *Engine) program(flow, hash string, log bool) (*compiler.Program, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if p := e.progs.get(flow, hash); p != nil {
		return p, nil
	}
	if e.opts.Reload != nil {
		e.reloadLocked()
		if p := e.progs.get(flow, hash); p != nil {
			return p, nil
		}
	}
	cur := e.progs.current[flow]
	if cur == nil {
		msg := fmt.Sprintf("this worker has no flow %q (it has %s): start it in the directory of the flow, or deploy the flow's files to it", flow, strings.Join(lang.SortedKeys(e.progs.current), ", "))
		e.logIf(log).Error("run refused: unknown flow", "flow", flow, "source", short(hash), "flows", lang.SortedKeys(e.progs.current))
		return nil, temporal.NewNonRetryableApplicationError(msg, "flowctl.unknown_flow", nil)
	}
	msg := fmt.Sprintf("flow %q on this worker (source %s, %s) is not the flow the run was started with (source %s): deploy the flow's files to the workers before starting runs of them (docs/scale-out.md)",
		flow, short(cur.SourceHash), cur.Filename, short(hash))
	e.logIf(log).Error("run refused: other version of its flow", "flow", flow, "source", short(hash), "worker_source", short(cur.SourceHash), "file", cur.Filename)
	return nil, temporal.NewNonRetryableApplicationError(msg, "flowctl.other_source", nil)
}

// reloadLocked loads the flows from their files again, keeps the versions
// unfinished runs still need, and logs what changed; a load that fails
// keeps what the worker has.
func (e *Engine) reloadLocked() {
	progs, err := e.opts.Reload()
	if err != nil {
		e.log().Error("flows not reloaded: they do not load; the worker keeps the versions it has", "error", err.Error())
		return
	}
	before := map[string]string{}
	for name, p := range e.progs.current {
		before[name] = p.SourceHash
	}
	changed, err := e.progs.set(progs)
	if err != nil {
		e.log().Error("flows not reloaded; the worker keeps the versions it has", "error", err.Error())
		return
	}
	for _, name := range changed {
		p := e.progs.current[name]
		if old, ok := before[name]; ok {
			e.log().Info("flow reloaded", "flow", name, "file", p.Filename, "source", short(p.SourceHash), "previous_source", short(old))
		} else {
			e.log().Info("flow loaded", "flow", name, "file", p.Filename, "source", short(p.SourceHash))
		}
	}
	e.pruneLocked()
}

// pruneLocked forgets the versions that are not current and that no
// unfinished run in the state is of. Without a state, or when it cannot
// be read, every version is kept.
func (e *Engine) pruneLocked() {
	for name, vs := range e.progs.versions {
		cur := e.progs.current[name]
		if cur == nil || len(vs) == 1 {
			continue
		}
		st := e.storeOf(cur)
		if st == nil {
			continue
		}
		runs, err := st.Runs(name, 0)
		if err != nil {
			continue
		}
		needed := map[string]bool{cur.SourceHash: true}
		for _, r := range runs {
			if r.Status == "running" || r.Status == string(runtime.StatusWaiting) {
				needed[r.SourceHash] = true
			}
		}
		for hash, p := range vs {
			if !needed[hash] {
				delete(vs, hash)
				e.log().Info("flow version dropped: no unfinished run is of it", "flow", name, "file", p.Filename, "source", short(hash))
			}
		}
	}
}

// storeOf is the state of a program's runs.
func (e *Engine) storeOf(p *compiler.Program) *state.Store {
	if e.opts.StoreFor != nil {
		return e.opts.StoreFor(p)
	}
	return e.opts.Store
}

// log is the engine's logger; one that drops everything when none was
// given.
func (e *Engine) log() *slog.Logger {
	if e.opts.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return e.opts.Logger
}

// logIf is the engine's logger when log is set, else one that drops
// everything.
func (e *Engine) logIf(log bool) *slog.Logger {
	if !log {
		return slog.New(slog.DiscardHandler)
	}
	return e.log()
}

func short(hash string) string { return hash[:min(12, len(hash))] }
