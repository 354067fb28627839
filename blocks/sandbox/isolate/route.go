package isolate

import (
	"context"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/lang"
)

// RouteOptions say where a router sends calls.
type RouteOptions struct {
	// GoEngine, when set, runs every go block with that engine
	// (lang.EngineInterpreted or lang.EngineCompiled), whatever its own
	// engine argument says (--go-engine).
	GoEngine string
	// InProcess runs every call that is not of a compiled block in
	// process (--sandbox inprocess).
	InProcess bool
}

// Route returns an executor that runs a block's calls in the pool, or with
// inProcess when the block's definition says sandbox = "inprocess" (code
// that has been reviewed and needs the speed) or the options say so. A
// compiled go block always runs in the pool, in a worker of its own
// program, and so does a python block (inProcess may be nil for python). It is blocks.Queued, as the pool is: an in-process call goes to
// inProcess as it is when that is Queued too (blocks.Limit), else with its
// Timeout applied (blocks.ExecuteWithin).
func Route(p *Pool, inProcess blocks.Executor, o RouteOptions) blocks.Queued {
	return router{p, inProcess, o}
}

type router struct {
	pool      *Pool
	inProcess blocks.Executor
	o         RouteOptions
}

func (router) Queued() {}

// Width is that of the in-process executor for the blocks that run in
// process, else the pool's.
func (r router) Width(b *blocks.Block) int {
	if b == nil || b.Def == nil || !r.inProcessFor(b.Def) {
		return r.pool.Width(b)
	}
	if bounded, ok := r.inProcess.(blocks.Bounded); ok {
		return bounded.Width(b)
	}
	return 0
}

// inProcessFor reports whether a block's calls run in process; a python
// block's never do.
func (r router) inProcessFor(def *lang.BlockDef) bool {
	return !def.Compiled(r.o.GoEngine) && def.Runtime != lang.RuntimePython &&
		(r.o.InProcess || def.Sandbox == lang.SandboxInProcess)
}

func (r router) Execute(ctx context.Context, call *blocks.Call) (*blocks.Result, error) {
	var def *lang.BlockDef
	if call.Block != nil {
		def = call.Block.Def
	}
	if def.Compiled(r.o.GoEngine) {
		return r.pool.execute(ctx, call, true)
	}
	if def != nil && r.inProcessFor(def) {
		if q, ok := r.inProcess.(blocks.Queued); ok {
			return q.Execute(ctx, call) // it applies the timeout when the call starts
		}
		return blocks.ExecuteWithin(ctx, call, r.inProcess)
	}
	return r.pool.execute(ctx, call, false)
}
