package thinker

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// What a proposal weakens: the safeguards of a flow that a change removes
// or loosens, found by comparing the flow compiled as it is with the flow
// compiled as the proposal would make it. A change that weakens one is
// shown so wherever a proposal is (flowctl proposals show, the API, the
// dashboard), and accepting it takes more than accepting another
// (docs/serve.md, "Tokens and roles").

// The kinds of weakening.
const (
	// WeakApproval: an approval step is removed or no longer asks, a step
	// no longer waits for one, or a rejection no longer stops the run.
	WeakApproval = "approval"
	// WeakWhen: a `when` (or `for_each`) is added to or changed on an
	// approval step, or a step's `when` that checked one changed.
	WeakWhen = "when"
	// WeakTimeout: a timeout of the flow or a step is removed or longer.
	WeakTimeout = "timeout"
	// WeakHTTPHosts: an http or scrape step or an MCP server connects to
	// a host the flow did not, or to one decided at run time: what
	// --http-allow must then stop.
	WeakHTTPHosts = "http_hosts"
	// WeakSecret: a secret is used where it was not, or read from another
	// variable.
	WeakSecret = "secret"
	// WeakUnchecked: the flow, as it is or as proposed, does not compile,
	// so nothing could be compared; it counts as a weakening.
	WeakUnchecked = "unchecked"
)

// Weakenings are the safeguards of base that proposed removes or loosens,
// in a stable order; flow names the flow file in them. Both programs must
// have compiled without errors.
func Weakenings(flow string, base, proposed *compiler.Program) []state.Weakening {
	c := &weakCompare{flow: flow, base: base, next: proposed, src: map[string][]byte{}}
	c.approvals()
	c.guards()
	c.timeouts()
	c.hosts()
	c.secrets()
	return c.out
}

type weakCompare struct {
	flow       string
	base, next *compiler.Program
	out        []state.Weakening
	// bypassed are the steps already said to no longer wait for an
	// approval, whose `when` is then not reported again.
	bypassed map[string]bool
	src      map[string][]byte // file contents, for expressions' text
}

func (c *weakCompare) add(kind, subject, format string, args ...any) {
	c.out = append(c.out, state.Weakening{Kind: kind, Flow: c.flow, Subject: subject, Message: fmt.Sprintf(format, args...)})
}

func stepSubject(name string) string { return fmt.Sprintf("step %q", name) }

func isApprovalStep(s *compiler.Step) bool {
	return s.Block != nil && s.Block.Builtin() && s.Block.Name == "approval"
}

// asksApproval reports whether a step is an approval step, or uses a flow
// that has one.
func asksApproval(s *compiler.Step) bool {
	if isApprovalStep(s) {
		return true
	}
	if s.Flow != nil {
		return slices.ContainsFunc(s.Flow.Steps, asksApproval)
	}
	return false
}

// approvalKind says what kind of approval a step is, for messages.
func approvalKind(s *compiler.Step) string {
	if isApprovalStep(s) {
		return "approval step"
	}
	return fmt.Sprintf("step, whose flow %q asks for an approval,", strings.TrimPrefix(s.Use, "flow."))
}

// after is the set of steps that wait for s: its dependents, transitively.
func after(s *compiler.Step) map[string]bool {
	seen := map[string]bool{}
	var walk func(*compiler.Step)
	walk = func(s *compiler.Step) {
		for _, d := range s.Dependents {
			if !seen[d.Name] {
				seen[d.Name] = true
				walk(d)
			}
		}
	}
	walk(s)
	return seen
}

// approvals: an approval removed, turned into another step, no longer
// waited for, or whose rejection no longer stops what comes after it.
func (c *weakCompare) approvals() {
	c.bypassed = map[string]bool{}
	for _, a := range c.base.Steps {
		if !asksApproval(a) {
			continue
		}
		now := c.next.StepsByName[a.Name]
		if now == nil || !asksApproval(now) {
			// What waited for it is not reported again.
			for name := range after(a) {
				c.bypassed[name] = true
			}
		}
		switch {
		case now == nil:
			c.add(WeakApproval, stepSubject(a.Name), "The %s %q is removed.", approvalKind(a), a.Name)
			continue
		case !asksApproval(now):
			c.add(WeakApproval, stepSubject(a.Name), "The %s %q no longer asks anyone: it uses %q.", approvalKind(a), a.Name, now.Use)
			continue
		}
		if a.OnError != lang.OnErrorContinue && now.OnError == lang.OnErrorContinue {
			c.add(WeakApproval, stepSubject(a.Name), "A rejection of %q no longer stops the steps after it: on_error = \"continue\".", a.Name)
		}
		waitNow := after(now)
		var gone []string
		for name := range after(a) {
			if c.next.StepsByName[name] != nil && !waitNow[name] {
				gone = append(gone, name)
			}
		}
		sort.Strings(gone)
		for _, name := range gone {
			c.bypassed[name] = true
			c.add(WeakApproval, stepSubject(name), "Step %q no longer waits for the %s %q.", name, approvalKind(a), a.Name)
		}
	}
}

// guards: a `when` or `for_each` added to or changed on an approval step
// (it may then ask nobody), and a `when` that checked an approval changed
// or removed.
func (c *weakCompare) guards() {
	for _, a := range c.base.Steps {
		now := c.next.StepsByName[a.Name]
		if now == nil {
			continue
		}
		if asksApproval(a) && asksApproval(now) {
			for _, g := range []struct {
				name      string
				old, next hcl.Expression
			}{{"when", a.When, now.When}, {"for_each", a.ForEach, now.ForEach}} {
				switch was, is := c.text(g.old), c.text(g.next); {
				case g.next == nil || was == is:
				case g.old == nil:
					c.add(WeakWhen, stepSubject(a.Name), "The %s %q gets a %s (%s): it asks nobody when that does not hold.", approvalKind(a), a.Name, g.name, is)
				default:
					c.add(WeakWhen, stepSubject(a.Name), "The %s of the %s %q changes from %s to %s.", g.name, approvalKind(a), a.Name, was, is)
				}
			}
		}
		if a.When == nil || c.bypassed[a.Name] {
			continue
		}
		checked := c.approvalsIn(a.When)
		if len(checked) == 0 {
			continue
		}
		switch was, is := c.text(a.When), c.text(now.When); {
		case now.When == nil:
			c.add(WeakWhen, stepSubject(a.Name), "The when of step %q, which checked the approval %s, is removed (it was %s).", a.Name, quoteAll(checked), was)
		case was != is:
			c.add(WeakWhen, stepSubject(a.Name), "The when of step %q, which checked the approval %s, changes from %s to %s.", a.Name, quoteAll(checked), was, is)
		}
	}
}

// approvalsIn are the approval steps of base an expression refers to.
func (c *weakCompare) approvalsIn(expr hcl.Expression) []string {
	var out []string
	for _, tr := range expr.Variables() {
		if tr.RootName() != "step" || len(tr) < 2 {
			continue
		}
		if attr, ok := tr[1].(hcl.TraverseAttr); ok {
			if s := c.base.StepsByName[attr.Name]; s != nil && asksApproval(s) && !slices.Contains(out, s.Name) {
				out = append(out, s.Name)
			}
		}
	}
	return out
}

// text is an expression's source, its spaces folded ("" for none).
func (c *weakCompare) text(expr hcl.Expression) string {
	if expr == nil {
		return ""
	}
	r := expr.Range()
	b, ok := c.src[r.Filename]
	if !ok {
		b, _ = os.ReadFile(r.Filename)
		c.src[r.Filename] = b
	}
	if r.Start.Byte < 0 || r.End.Byte > len(b) || r.Start.Byte > r.End.Byte {
		return ""
	}
	return strings.Join(strings.Fields(string(b[r.Start.Byte:r.End.Byte])), " ")
}

// timeouts: the flow's or a step's timeout removed or made longer.
func (c *weakCompare) timeouts() {
	var was, is time.Duration
	if c.base.Flow.Timeout != nil {
		was = c.base.Flow.Timeout.Duration
	}
	if c.next.Flow.Timeout != nil {
		is = c.next.Flow.Timeout.Duration
	}
	c.timeout(fmt.Sprintf("flow %q", c.base.Flow.Name), "the flow", was, is)
	for _, s := range c.base.Steps {
		if now := c.next.StepsByName[s.Name]; now != nil {
			c.timeout(stepSubject(s.Name), fmt.Sprintf("step %q", s.Name), stepTimeout(s), stepTimeout(now))
		}
	}
}

func (c *weakCompare) timeout(subject, what string, was, is time.Duration) {
	switch {
	case was == 0 || was == is:
	case is == 0:
		c.add(WeakTimeout, subject, "The timeout of %s (%s) is removed: it has none.", what, was)
	case is > was:
		c.add(WeakTimeout, subject, "The timeout of %s goes from %s to %s.", what, was, is)
	}
}

// stepTimeout is what bounds each attempt of a step: its timeout, else its
// block's; an http or scrape request without one ends after
// blocks.DefaultHTTPTimeout.
func stepTimeout(s *compiler.Step) time.Duration {
	t := runtime.StepTimeout(s)
	if t == 0 && s.Block != nil && s.Block.Builtin() && (s.Block.Name == "http" || s.Block.Name == "scrape") {
		return blocks.DefaultHTTPTimeout
	}
	return t
}

// anyHost stands for a host decided when the flow runs.
const anyHost = "*"

// hosts: an http or scrape step, or an MCP server, that connects to a
// host no step of the flow connected to, or to one decided at run time
// when none was.
func (c *weakCompare) hosts() {
	had := map[string]bool{}
	for _, u := range hostsOf(c.base) {
		had[u.host] = true
	}
	for _, u := range hostsOf(c.next) {
		if had[u.host] {
			continue
		}
		if u.host == anyHost {
			c.add(WeakHTTPHosts, u.subject, "The url of %s is made when the flow runs, so it may connect to any host that --http-allow lets through.", u.subject)
		} else {
			c.add(WeakHTTPHosts, u.subject, "%s connects to %s, which the flow did not connect to.", upperFirst(u.subject), u.host)
		}
	}
}

type hostUse struct{ subject, host string }

// hostsOf are the hosts a program's http and scrape steps, MCP servers
// and model providers connect to, in declaration order.
func hostsOf(p *compiler.Program) []hostUse {
	var out []hostUse
	for _, s := range p.Steps {
		if s.Block == nil || !s.Block.Builtin() || (s.Block.Name != "http" && s.Block.Name != "scrape") {
			continue
		}
		if a := s.Arg("url"); a != nil {
			out = append(out, hostUse{stepSubject(s.Name), hostOf(p, a.Expr)})
		}
	}
	for _, m := range p.MCPServers {
		if m.URL != "" {
			out = append(out, hostUse{fmt.Sprintf("mcp_server %q", m.Name), urlHost(m.URL)})
		}
	}
	for _, pr := range p.Providers {
		out = append(out, hostUse{fmt.Sprintf("provider %q", pr.Name), urlHost(pr.BaseURL)})
	}
	return out
}

// hostOf is the host of a url expression, anyHost when the part of it
// that names the host is not written out.
func hostOf(p *compiler.Program, expr hcl.Expression) string {
	prefix, whole := staticPrefix(p, expr, 0)
	if whole {
		return urlHost(prefix)
	}
	_, rest, ok := strings.Cut(prefix, "://")
	if !ok || !strings.ContainsAny(rest, "/?#") {
		return anyHost
	}
	return urlHost(prefix)
}

// urlHost is the host of a url, lower case and without its port;
// anyHost when it has none.
func urlHost(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Hostname() == "" {
		return anyHost
	}
	if ip := net.ParseIP(u.Hostname()); ip != nil {
		return ip.String()
	}
	return strings.ToLower(u.Hostname())
}

// staticPrefix is the text an expression starts with that is written out
// (through locals), and whether that is all of it.
func staticPrefix(p *compiler.Program, expr hcl.Expression, depth int) (string, bool) {
	if depth > 8 {
		return "", false
	}
	switch e := expr.(type) {
	case *hclsyntax.LiteralValueExpr:
		if e.Val.Type() == cty.String && e.Val.IsKnown() && !e.Val.IsNull() {
			return e.Val.AsString(), true
		}
	case *hclsyntax.TemplateExpr:
		var b strings.Builder
		for _, part := range e.Parts {
			s, whole := staticPrefix(p, part, depth+1)
			b.WriteString(s)
			if !whole {
				return b.String(), false
			}
		}
		return b.String(), true
	case *hclsyntax.TemplateWrapExpr:
		return staticPrefix(p, e.Wrapped, depth+1)
	case *hclsyntax.ScopeTraversalExpr:
		if len(e.Traversal) == 2 && e.Traversal.RootName() == "local" {
			if attr, ok := e.Traversal[1].(hcl.TraverseAttr); ok {
				if l := p.LocalsByName[attr.Name]; l != nil && l.Expr != nil {
					return staticPrefix(p, l.Expr, depth+1)
				}
			}
		}
	}
	return "", false
}

// secrets: a secret used by a step, MCP server or output that did not use
// it, or read from another environment variable.
func (c *weakCompare) secrets() {
	for _, s := range c.base.Secrets {
		if now := c.next.SecretsByName[s.Name]; now != nil && now.Env != s.Env {
			c.add(WeakSecret, fmt.Sprintf("secret %q", s.Name), "Secret %q is read from %s, not %s.", s.Name, now.Env, s.Env)
		}
	}
	had := map[[2]string]bool{}
	for _, u := range secretUses(c.base) {
		had[u] = true
	}
	for _, u := range secretUses(c.next) {
		if !had[u] {
			c.add(WeakSecret, u[0], "%s uses secret %q, which it did not.", upperFirst(u[0]), u[1])
		}
	}
}

// secretUses are the (user, secret) pairs of a program: which steps, MCP
// servers, providers (their api_key) and outputs refer to which secrets,
// directly or through locals.
func secretUses(p *compiler.Program) [][2]string {
	var out [][2]string
	seen := map[[2]string]bool{}
	use := func(user string, names []string) {
		for _, n := range names {
			if k := [2]string{user, n}; !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	for _, s := range p.Steps {
		var exprs []hcl.Expression
		for _, a := range s.Args {
			exprs = append(exprs, a.Expr)
		}
		exprs = append(exprs, s.When, s.ForEach)
		use(stepSubject(s.Name), secretsIn(p, exprs...))
	}
	for _, m := range p.MCPServers {
		use(fmt.Sprintf("mcp_server %q", m.Name), secretsIn(p, m.Env, m.Headers))
	}
	for _, pr := range p.Providers {
		if k := pr.APIKeySecret(); k != "" {
			use(fmt.Sprintf("provider %q", pr.Name), []string{k})
		}
	}
	for _, o := range p.Outputs {
		use(fmt.Sprintf("output %q", o.Name), secretsIn(p, o.Value))
	}
	return out
}

// secretsIn are the secrets expressions refer to, directly or through
// locals, sorted.
func secretsIn(p *compiler.Program, exprs ...hcl.Expression) []string {
	found, locals := map[string]bool{}, map[string]bool{}
	var walk func(hcl.Expression)
	walk = func(expr hcl.Expression) {
		if expr == nil {
			return
		}
		for _, tr := range expr.Variables() {
			if len(tr) < 2 {
				continue
			}
			attr, ok := tr[1].(hcl.TraverseAttr)
			if !ok {
				continue
			}
			switch tr.RootName() {
			case "secret":
				found[attr.Name] = true
			case "local":
				if l := p.LocalsByName[attr.Name]; l != nil && !locals[attr.Name] {
					locals[attr.Name] = true
					walk(l.Expr)
				}
			}
		}
	}
	for _, e := range exprs {
		walk(e)
	}
	out := make([]string, 0, len(found))
	for n := range found {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
