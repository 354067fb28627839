package compiler

import (
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// checkMCP checks the flow's mcp_server blocks and the steps that use the
// mcp block: a server's env and headers are maps of strings that refer
// only to inputs, secrets and locals that use no step (a server starts
// before any step needs it to); an mcp step names a declared server, as a
// literal.
func (c *compilation) checkMCP(tv *typeValues) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, srv := range c.prog.MCPServers {
		for _, e := range []struct {
			name string
			expr hcl.Expression
		}{{"env", srv.Env}, {"headers", srv.Headers}} {
			if e.expr == nil {
				continue
			}
			bad := false
			for _, tr := range e.expr.Variables() {
				switch tr.RootName() {
				case "input", "secret":
				case "local":
					ref, _ := lang.ParseRef(tr)
					if ref == nil {
						continue
					}
					if s := stepOfLocal(c.prog.LocalsByName[ref.Name], map[*Local]bool{}); s != nil {
						bad = true
						diags = append(diags, lang.Error(tr.SourceRange(), "Invalid reference",
							"The %s of mcp_server %q may refer to inputs, secrets and locals that use no step, not to local.%s, which uses step.%s: the server is started before the steps that call it run.",
							e.name, srv.Name, ref.Name, s.Name)...)
					}
				default:
					bad = true
					diags = append(diags, lang.Error(tr.SourceRange(), "Invalid reference",
						"The %s of mcp_server %q may refer to inputs, secrets and locals, not to %s: the server is started before the steps that call it run.",
						e.name, srv.Name, lang.TraversalString(tr))...)
				}
			}
			if bad {
				continue
			}
			v, ctx, d := tv.eval(e.expr, nil)
			diags = append(diags, d...)
			if !d.HasErrors() {
				diags = append(diags, checkConversion(v, lang.TypeSpec{Type: cty.Map(cty.String)}, e.expr, ctx,
					"Invalid "+e.name, sprintf("The %s of mcp_server %q must be a map of strings", e.name, srv.Name))...)
			}
		}
	}
	for _, s := range c.prog.Steps {
		if s.Block == nil || !s.Block.Builtin() || s.Block.Name != "mcp" {
			continue
		}
		a := s.Arg("server")
		if a == nil {
			continue // a missing input, reported by resolve
		}
		v, d := a.Expr.Value(nil)
		if d.HasErrors() || len(a.Expr.Variables()) > 0 || v.IsNull() || v.Type() != cty.String {
			diags = append(diags, lang.Error(a.Expr.Range(), "Invalid server",
				"The server of an mcp step is the name of an mcp_server block of the flow, as a string literal, such as server = %q.",
				firstServerName(c.prog))...)
			continue
		}
		if name := v.AsString(); c.prog.MCPServersByName[name] == nil {
			diags = append(diags, unknownMCPServer(c.prog, name, a.Expr.Range())...)
		}
	}
	return diags
}

// stepOfLocal returns a step that local l refers to, directly or through
// other locals; nil when it refers to none.
func stepOfLocal(l *Local, seen map[*Local]bool) *Step {
	if l == nil || seen[l] {
		return nil
	}
	seen[l] = true
	if len(l.Steps) > 0 {
		return l.Steps[0]
	}
	for _, d := range l.Deps {
		if s := stepOfLocal(d, seen); s != nil {
			return s
		}
	}
	return nil
}

// unknownMCPServer is the error of a name that is no mcp_server's.
func unknownMCPServer(p *Program, name string, rng hcl.Range) hcl.Diagnostics {
	return lang.Error(rng, "Unknown MCP server",
		"Flow %q declares no mcp_server named %q; its MCP servers are %s. Declare one with mcp_server %q { command = [...] } or { url = \"...\" }.%s",
		p.Flow.Name, name, listOrNone(lang.SortedKeys(p.MCPServersByName)), name, lang.Suggest(name, lang.SortedKeys(p.MCPServersByName)))
}

func firstServerName(p *Program) string {
	if len(p.MCPServers) > 0 {
		return p.MCPServers[0].Name
	}
	return "NAME"
}
