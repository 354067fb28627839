package blocks

import (
	"encoding/json"

	"github.com/flowctl/flowctl/lang"
)

// MCPTool is a tool of an MCP server that a flow declares, or (with Err)
// a server whose tools could not be listed: what blocks list shows of a
// flow's MCP servers (runtime.ListFlowMCPTools lists them).
type MCPTool struct {
	Flow   string
	Server *lang.MCPServer
	// Tool is the tool's name, Description and InputSchema its own.
	Tool        string
	Description string
	InputSchema json.RawMessage
	Err         error
}

// Name is how an llm step's tools name the tool: mcp.SERVER.TOOL.
func (t MCPTool) Name() string {
	if t.Err != nil {
		return lang.ToolMCP + "." + t.Server.Name + ".*"
	}
	return lang.ToolMCP + "." + t.Server.Name + "." + t.Tool
}
