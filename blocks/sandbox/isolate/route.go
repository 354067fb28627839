package isolate

import (
	"context"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/lang"
)

// Route returns an executor that runs a block's calls in the pool, or with
// inProcess when the block's definition says sandbox = "inprocess" (code
// that has been reviewed and needs the speed).
func Route(p *Pool, inProcess blocks.Executor) blocks.Executor {
	return blocks.ExecutorFunc(func(ctx context.Context, call *blocks.Call) (*blocks.Result, error) {
		if call.Block != nil && call.Block.Def != nil && call.Block.Def.Sandbox == lang.SandboxInProcess {
			return inProcess.Execute(ctx, call)
		}
		return p.Execute(ctx, call)
	})
}
