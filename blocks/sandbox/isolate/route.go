package isolate

import (
	"context"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/lang"
)

// Route returns an executor that runs a block's calls in the pool, or with
// inProcess when the block's definition says sandbox = "inprocess" (code
// that has been reviewed and needs the speed). It is blocks.Queued, as the
// pool is: an in-process call goes to inProcess as it is when that is
// Queued too (blocks.Limit), else with its Timeout applied
// (blocks.ExecuteWithin).
func Route(p *Pool, inProcess blocks.Executor) blocks.Queued {
	return router{p, inProcess}
}

type router struct {
	pool      *Pool
	inProcess blocks.Executor
}

func (router) Queued() {}

func (r router) Execute(ctx context.Context, call *blocks.Call) (*blocks.Result, error) {
	if call.Block != nil && call.Block.Def != nil && call.Block.Def.Sandbox == lang.SandboxInProcess {
		if q, ok := r.inProcess.(blocks.Queued); ok {
			return q.Execute(ctx, call) // it applies the timeout when the call starts
		}
		return blocks.ExecuteWithin(ctx, call, r.inProcess)
	}
	return r.pool.Execute(ctx, call)
}
