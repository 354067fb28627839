package n8n

import (
	"fmt"
	"strings"

	"github.com/dop251/goja/ast"
	"github.com/flowctl/flowctl/importer"
)

// envSecret translates $env.NAME (and $env["NAME"]) in an HTTP Request's
// parameters: n8n reads the variable from its own process's environment,
// which holds what the deployment gives it — a key, a token, an ID. The
// flow's counterpart is a secret the deployment sets
// (FLOWCTL_SECRET_NAME), one for each variable however many nodes read
// it. Other nodes keep $env an Unsupported expression: a secret's value
// is sensitive, which their outputs are not.
func (s *n8nScope) envSecret(e ast.Expression, at *importer.JV) (importer.Expr, bool) {
	if s.node.typ != "httpRequest" {
		return nil, false
	}
	var left ast.Expression
	var name string
	switch m := e.(type) {
	case *ast.DotExpression:
		left, name = m.Left, string(m.Identifier.Name)
	case *ast.BracketExpression:
		lit, ok := m.Member.(*ast.StringLiteral)
		if !ok {
			return nil, false
		}
		left, name = m.Left, lit.Value.String()
	default:
		return nil, false
	}
	if id, ok := left.(*ast.Identifier); !ok || id.Name != "$env" || name == "" {
		return nil, false
	}
	key := "$env\x00" + name
	if got, ok := s.n.creds[key]; ok {
		return importer.Ref("secret", got[0]), true
	}
	sec := s.n.AddSecret(name, fmt.Sprintf("n8n's environment variable %s ($env.%s)", name, name), "")
	s.n.creds[key] = []string{sec}
	s.n.Warn(s.node.where, at, "Environment variable made a secret",
		fmt.Sprintf("$env.%s is what n8n's process environment holds; the flow reads it from secret.%s, which the deployment sets (FLOWCTL_SECRET_%s) as it set the variable for n8n.", name, sec, strings.ToUpper(sec)))
	return importer.Ref("secret", sec), true
}
