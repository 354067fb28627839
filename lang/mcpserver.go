package lang

import (
	"net/url"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// MCPServer is an `mcp_server "NAME"` block of a flow file: a Model
// Context Protocol server whose tools the flow's steps may call (the mcp
// block, mcp.NAME.TOOL in an llm step's tools). It is started (command)
// or reached (url) once per run, when a step first needs it.
type MCPServer struct {
	Name      string
	NameRange hcl.Range
	DeclRange hcl.Range
	// Command is the program and its arguments, run in the flow's
	// directory and spoken to over its standard input and output; URL is
	// the endpoint of a server over streamable HTTP. Exactly one is set.
	Command      []string
	CommandRange hcl.Range
	URL          string
	URLRange     hcl.Range
	// Env (with command) adds environment variables to the process's;
	// Headers (with url) are sent with each request. Both are maps of
	// strings that may refer to inputs, secrets and locals; nil when not
	// given.
	Env, Headers hcl.Expression
	Description  string
}

var mcpServerSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "command"}, {Name: "url"}, {Name: "env"}, {Name: "headers"}, {Name: "description"},
	},
}

func decodeMCPServerBlock(b *hcl.Block) (*MCPServer, hcl.Diagnostics) {
	m := &MCPServer{Name: b.Labels[0], NameRange: b.LabelRanges[0], DeclRange: b.DefRange}
	diags := checkName("mcp_server", m.Name, m.NameRange)
	content, d := b.Body.Content(mcpServerSchema)
	diags = append(diags, d...)
	attrs := content.Attributes
	if a, ok := attrs["command"]; ok {
		m.CommandRange = a.Expr.Range()
		v, d := constOf(a, cty.List(cty.String), "command")
		diags = append(diags, d...)
		if !d.HasErrors() {
			for _, e := range v.AsValueSlice() {
				if e.IsNull() {
					diags = append(diags, Error(m.CommandRange, "Invalid command", "The command's words must not be null.")...)
					break
				}
				m.Command = append(m.Command, e.AsString())
			}
			if len(m.Command) == 0 || m.Command[0] == "" {
				diags = append(diags, Error(m.CommandRange, "Invalid command",
					"The command is the program and its arguments, such as [\"flowctl\", \"mcp\", \"flows\"]; the program must not be empty.")...)
			}
		}
	}
	if a, ok := attrs["url"]; ok {
		m.URLRange = a.Expr.Range()
		m.URL, d = stringAttr(a)
		diags = append(diags, d...)
		if !d.HasErrors() {
			if u, err := url.Parse(m.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				diags = append(diags, Error(m.URLRange, "Invalid url",
					"The url of an MCP server is its http or https endpoint, such as \"http://127.0.0.1:8081/mcp\".")...)
			}
		}
	}
	_, hasCommand := attrs["command"]
	_, hasURL := attrs["url"]
	switch {
	case hasCommand && hasURL:
		diags = append(diags, Error(m.URLRange, "Conflicting arguments",
			"An mcp_server has either a command (a server it starts) or a url (a server it reaches), not both.")...)
	case !hasCommand && !hasURL:
		diags = append(diags, Error(m.DeclRange, "Missing command or url",
			"mcp_server %q needs a command = [\"PROGRAM\", \"ARG\", ...] to start a server, or a url = \"http://HOST:PORT/PATH\" to reach one.", m.Name)...)
	}
	if a, ok := attrs["env"]; ok {
		m.Env = a.Expr
		if !hasCommand {
			diags = append(diags, Error(a.NameRange, "Unexpected env", "env is for a server started by its command; a server reached by url takes headers.")...)
		}
	}
	if a, ok := attrs["headers"]; ok {
		m.Headers = a.Expr
		if !hasURL {
			diags = append(diags, Error(a.NameRange, "Unexpected headers", "headers are for a server reached by its url; a server started by its command takes env.")...)
		}
	}
	if a, ok := attrs["description"]; ok {
		m.Description, d = stringAttr(a)
		diags = append(diags, d...)
	}
	return m, diags
}

// Fingerprint identifies the server for the cache keys of the steps that
// may call its tools: its command or its url.
func (m *MCPServer) Fingerprint() string {
	return "mcp_server " + strings.Join(m.Command, "\x00") + m.URL
}
