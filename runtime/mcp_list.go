package runtime

import (
	"bytes"
	"context"
	"os"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/compiler"
	"github.com/zclconf/go-cty/cty"
)

// ListFlowMCPTools starts or reaches the MCP servers the flow files
// declare, as a run would (inputs at their defaults, unknown without
// one, secrets from the environment), and lists their tools, waiting at
// most timeout for each flow's servers. A flow file that does not name
// mcp_server is not compiled; one that does not compile is left out.
func ListFlowMCPTools(files []string, o compiler.Options, timeout time.Duration) []blocks.MCPTool {
	var out []blocks.MCPTool
	for _, flow := range files {
		// Only a flow whose text names mcp_server can declare one: the
		// others are not compiled.
		if src, err := os.ReadFile(flow); err != nil || !bytes.Contains(src, []byte("mcp_server")) {
			continue
		}
		prog, diags := compiler.Compile(flow, o)
		if diags.HasErrors() || prog == nil {
			continue // listing is not validating; its servers are not listed
		}
		inputs, _ := prog.ResolveInputs(nil)
		for _, in := range prog.Inputs {
			if _, ok := inputs[in.Name]; !ok {
				inputs[in.Name] = cty.UnknownVal(in.Type.Type)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		for _, st := range ListMCPTools(ctx, prog, Options{Inputs: inputs}) {
			if st.Err != nil {
				out = append(out, blocks.MCPTool{Flow: flow, Server: st.Server, Err: st.Err})
				continue
			}
			for _, t := range st.Tools {
				out = append(out, blocks.MCPTool{Flow: flow, Server: st.Server, Tool: t.Name, Description: t.Description, InputSchema: t.InputSchema})
			}
		}
		cancel()
	}
	return out
}
