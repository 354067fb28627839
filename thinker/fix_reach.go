package thinker

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/sandbox/isolate"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// What a fix may reach while it is checked. A fix is written by a model,
// from what a run recorded: errors, logs and outputs that pages, APIs and
// the run's inputs put there, which anyone may have written. Nothing of it
// runs with a secret, or reaches a host, that the flow as a person last
// accepted did not already use, until a person accepts it. The accepted
// flow is the flow's files on disk as they are (the fix is written over a
// copy of them):
//
//   - a secret is allowed for a step when the accepted flow passes it to
//     the step of the same name (its arguments, when or for_each, directly
//     or through locals);
//   - a host is allowed when an accepted http or scrape step's URL names
//     it (a URL known before the run: no reference in it), or the HTTP
//     allow list (--http-allow) does; a step that is passed a secret may
//     send it only where the accepted step of its name does (its host, the
//     model provider, an MCP server);
//   - the model provider is allowed when the accepted flow has a step that
//     calls a model; an MCP server when the accepted flow declares it as
//     it is; a flow a step uses when the accepted step uses it as it is.
//
// A step the fix changes (StepVersions) that would need more is not run,
// nor is anything else: the fix is staged as not verified, with what it
// needs, for a person to decide (reachProblems). What does run runs with
// the real value only of the secrets the accepted flow's steps use, a
// placeholder for the others (checkSecrets), and with http and scrape
// confined to the allowed hosts (checkExecutors), so that a step the fix
// leaves as it is but feeds a URL to still reaches no other host.

// placeholderSecret is the value a checked fix's run has for a secret
// that no step of the accepted flow uses.
const placeholderSecret = "flowctl-check-placeholder"

// reachPolicy is what the accepted flow reaches.
type reachPolicy struct {
	accepted *compiler.Program
	allow    *blocks.Egress // the HTTP allow list; nil (or AllowsAll) for none
	hosts    []string       // the hosts its http and scrape steps' URLs name
	llm      bool           // it has a step that calls a model
	// used are the names of the secrets its steps, MCP servers and the
	// flows they use refer to (a flow a step uses is handed its secrets by
	// name); env their environment variables.
	used, env map[string]bool
}

func newReachPolicy(accepted *compiler.Program, allow *blocks.Egress) *reachPolicy {
	p := &reachPolicy{accepted: accepted, allow: allow, used: map[string]bool{}, env: map[string]bool{}}
	seen := map[*compiler.Program]bool{}
	var walk func(prog *compiler.Program)
	walk = func(prog *compiler.Program) {
		if prog == nil || seen[prog] {
			return
		}
		seen[prog] = true
		for _, s := range prog.Steps {
			if host, ok := staticHost(s); ok && host != "" && !slices.Contains(p.hosts, host) {
				p.hosts = append(p.hosts, host)
			}
			if callsModel(s) {
				p.llm = true
			}
			for _, name := range stepSecrets(prog, s) {
				p.used[name], p.env[prog.SecretsByName[name].Env] = true, true
			}
			walk(s.Flow)
			for _, t := range s.Tools {
				walk(t.Flow)
			}
		}
		for _, m := range prog.MCPServers {
			for _, name := range exprSecrets(prog, m.Env, m.Headers) {
				p.used[name], p.env[prog.SecretsByName[name].Env] = true, true
			}
		}
	}
	walk(accepted)
	slices.Sort(p.hosts)
	return p
}

// hostAllowed reports whether the accepted flow reaches a host.
func (p *reachPolicy) hostAllowed(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	return slices.Contains(p.hosts, host) || p.allow.Names(host)
}

// egress is where the checked run's http and scrape steps may connect:
// the HTTP allow list when one was given, else the hosts the accepted
// flow's URLs name (none: no host).
func (p *reachPolicy) egress() (*blocks.Egress, error) {
	if p.allow != nil && !p.allow.AllowsAll() {
		return p.allow, nil
	}
	return blocks.AllowOnly(p.hosts)
}

// reachProblems are what a fixed flow would reach that the accepted flow
// does not, each a sentence naming the step and what it needs; none when
// the fix may be run.
func (p *reachPolicy) reachProblems(fixed *compiler.Program) []string {
	var out []string
	for _, m := range fixed.MCPServers {
		a := p.accepted.MCPServersByName[m.Name]
		switch {
		case a == nil:
			out = append(out, fmt.Sprintf("mcp_server %q is new: it needs a program or host the accepted flow does not use, and is not started", m.Name))
		case a.Fingerprint() != m.Fingerprint() || sourceText(a.Env) != sourceText(m.Env) || sourceText(a.Headers) != sourceText(m.Headers):
			out = append(out, fmt.Sprintf("mcp_server %q is changed: it needs a program, host or environment the accepted flow does not use, and is not started", m.Name))
		}
	}
	for _, pr := range fixed.Providers {
		a := p.accepted.ProvidersByName[pr.Name]
		switch {
		case a == nil:
			out = append(out, fmt.Sprintf("provider %q is new: it reaches a model server the accepted flow does not use, and is not called", pr.Name))
		case a.BaseURL != pr.BaseURL || a.APIKeySecret() != pr.APIKeySecret():
			out = append(out, fmt.Sprintf("provider %q is changed: it would send its key to a server, or a key to a server, the accepted flow does not, and is not called", pr.Name))
		}
	}
	versions, accepted := fixed.StepVersions(), p.accepted.StepVersions()
	for _, s := range fixed.Steps {
		a := p.accepted.StepsByName[s.Name]
		if s.Flow != nil && (a == nil || a.Flow == nil || a.Flow.SourceHash != s.Flow.SourceHash) {
			out = append(out, fmt.Sprintf("step %s uses flow %q, which is not the flow the accepted step uses as it is: it is not run", s.Name, s.Flow.Flow.Name))
			continue
		}
		if a != nil && versions[s.Name] == accepted[s.Name] {
			continue // as accepted
		}
		var given []string
		if a != nil {
			given = stepSecrets(p.accepted, a)
		}
		var secrets []string // those it is given as accepted
		for _, name := range stepSecrets(fixed, s) {
			if slices.Contains(given, name) {
				secrets = append(secrets, name)
			} else {
				out = append(out, fmt.Sprintf("step %s needs secret %s, which the accepted flow does not pass to it", s.Name, name))
			}
		}
		if len(secrets) > 0 {
			// A secret the step is passed goes only where the accepted
			// step sends it, not to another host the flow reaches.
			if where := p.sendsElsewhere(s, a); where != "" {
				out = append(out, fmt.Sprintf("step %s would send secret %s to %s, where the accepted step %s does not send it", s.Name, strings.Join(secrets, ", "), where, a.Name))
			}
		}
		switch host, ok := staticHost(s); {
		case ok && host == "":
			out = append(out, fmt.Sprintf("step %s needs a host its url computes when it runs, which the accepted flow does not name", s.Name))
		case ok && !p.hostAllowed(host):
			out = append(out, fmt.Sprintf("step %s needs host %s, which the accepted flow does not reach", s.Name, host))
		}
		if s.Block != nil {
			if why := unconfinableCode(s.Block.Def, fixed.GoEngine); why != "" {
				out = append(out, fmt.Sprintf("step %s runs code that cannot be confined here: %s", s.Name, why))
			}
		}
		if callsModel(s) && !p.llm {
			out = append(out, fmt.Sprintf("step %s calls a model (the model provider's host), which the accepted flow does not", s.Name))
		}
		for _, t := range s.Tools {
			if a != nil && slices.ContainsFunc(a.Tools, func(at *compiler.Tool) bool { return at.Ref() == t.Ref() && at.Fingerprint == t.Fingerprint }) {
				continue
			}
			switch {
			case t.Flow != nil:
				out = append(out, fmt.Sprintf("step %s may call flow %q, which the accepted step does not: it is not run", s.Name, t.Name))
			case t.Block != nil && t.Block.Builtin() && (t.Block.Name == "http" || t.Block.Name == "scrape"):
				out = append(out, fmt.Sprintf("step %s may call %s with any URL, which the accepted step does not: it is not run", s.Name, t.Block.Name))
			case t.Block != nil && callsModelBlock(t.Block) && !p.llm:
				out = append(out, fmt.Sprintf("step %s may call a model (the model provider's host), which the accepted flow does not", s.Name))
			}
		}
	}
	return out
}

// sendsElsewhere is where a changed step s sends what it is passed that
// the accepted step a of its name does not: a host ("host H"), the model
// provider or an MCP server; "" when nowhere else. A host its URL computes
// is reported apart (reachProblems).
func (p *reachPolicy) sendsElsewhere(s, a *compiler.Step) string {
	if host, ok := staticHost(s); ok && host != "" {
		switch ahost, aok := staticHost(a); {
		case !aok:
			return "host " + host
		case ahost == "" && !p.allow.Names(host), ahost != "" && ahost != host:
			return "host " + host
		}
	}
	if callsModel(s) && !callsModel(a) {
		return "the model provider"
	}
	if isMCP(s) && !isMCP(a) {
		return "an MCP server"
	}
	return ""
}

// isMCP reports whether a step calls a tool of an MCP server.
func isMCP(s *compiler.Step) bool {
	return s.Block != nil && s.Block.Builtin() && s.Block.Name == "mcp"
}

// checkSecrets are the secrets of the checked run: the real value of a
// secret a step of the accepted flow, or of a flow it uses, refers to (as
// given, else from its environment variable), a placeholder for the
// others; and the lookup of
// environment variables that the flows it starts read theirs with, which
// gives only those of the secrets the accepted flows use.
func (p *reachPolicy) checkSecrets(fixed *compiler.Program, given map[string]string) (map[string]string, func(string) (string, bool)) {
	out := map[string]string{}
	for _, sec := range fixed.Secrets {
		a := p.accepted.SecretsByName[sec.Name]
		if a == nil || !p.used[sec.Name] {
			out[sec.Name] = placeholderSecret
			continue
		}
		if v, ok := given[sec.Name]; ok {
			out[sec.Name] = v
		} else if v, ok := os.LookupEnv(a.Env); ok {
			out[sec.Name] = v
		} // else missing, as it is for the run
	}
	lookup := func(name string) (string, bool) {
		if p.env[name] {
			return os.LookupEnv(name)
		}
		return placeholderSecret, true
	}
	return out, lookup
}

// checkExecutors are ex with http and scrape confined to egress, and
// without a model when the accepted flow calls none.
func (p *reachPolicy) checkExecutors(ex *blocks.Executors, o blocks.HTTPOptions) (*blocks.Executors, error) {
	egress, err := p.egress()
	if err != nil {
		return nil, err
	}
	o.Egress = egress
	out := &blocks.Executors{Builtins: map[string]blocks.Executor{}, Runtimes: map[string]blocks.Executor{}}
	for k, v := range ex.Builtins {
		out.Builtins[k] = v
	}
	for k, v := range ex.Runtimes {
		out.Runtimes[k] = v
	}
	confined := blocks.BuiltinExecutorsWith(o)
	out.Builtins["http"], out.Builtins["scrape"] = confined["http"], confined["scrape"]
	if !p.llm {
		out.Builtins["llm"], out.Runtimes[lang.RuntimeLLM] = noModel{}, noModel{}
	}
	return out, nil
}

// noModel is the model of a checked run whose accepted flow calls none.
type noModel struct{}

func (noModel) Execute(context.Context, *blocks.Call) (*blocks.Result, error) {
	return nil, fmt.Errorf("a fix being checked may not call a model: the accepted flow calls none")
}

// unconfinableCode says why a block's code would not run confined here
// (a python or compiled go block, where the sandbox cannot confine their
// workers); "" when it would. Code a model wrote is not run unconfined,
// --unconfined or not: it could reach any host and the user's files.
func unconfinableCode(def *lang.BlockDef, goEngine string) string {
	if def == nil {
		return ""
	}
	python := def.Runtime == lang.RuntimePython
	if !python && (def.Runtime != lang.RuntimeGo || !def.Compiled(goEngine)) {
		return ""
	}
	missing := isolate.UnconfinableCode(python)
	if len(missing) == 0 {
		return ""
	}
	what := "python blocks"
	if !python {
		what = "compiled go blocks"
	}
	return fmt.Sprintf("%s cannot be confined on %s (it has no %s), and code a model wrote is not run unconfined", what, isolate.Platform(), isolate.JoinOr(missing))
}

// callsModel reports whether a step calls a model: the llm block, or a
// block of runtime llm.
func callsModel(s *compiler.Step) bool { return s.Block != nil && callsModelBlock(s.Block) }

func callsModelBlock(b *blocks.Block) bool {
	return b.Builtin() && b.Name == "llm" || b.Runtime == lang.RuntimeLLM
}

// staticHost is the host of an http or scrape step's url (ok), lowercased;
// "" when the url is computed when the step runs (it refers to something)
// or has no host.
func staticHost(s *compiler.Step) (host string, ok bool) {
	if s.Block == nil || !s.Block.Builtin() || (s.Block.Name != "http" && s.Block.Name != "scrape") {
		return "", false
	}
	a := s.Arg("url")
	if a == nil || len(a.Expr.Variables()) > 0 {
		return "", true
	}
	v, diags := a.Expr.Value(&hcl.EvalContext{})
	if diags.HasErrors() || v.IsNull() || !v.IsWhollyKnown() || v.Type() != cty.String {
		return "", true
	}
	u, err := url.Parse(strings.TrimSpace(v.AsString()))
	if err != nil {
		return "", true
	}
	return strings.ToLower(strings.TrimSuffix(u.Hostname(), ".")), true
}

// stepSecrets are the secrets a step's arguments, when and for_each refer
// to, directly or through locals, and the api_key of the provider it
// names, sorted.
func stepSecrets(prog *compiler.Program, s *compiler.Step) []string {
	exprs := make([]hcl.Expression, 0, len(s.Args)+2)
	for _, a := range s.Args {
		exprs = append(exprs, a.Expr)
	}
	out := exprSecrets(prog, append(exprs, s.When, s.ForEach)...)
	// The key of the provider an llm step names goes with its requests.
	if s.Provider != nil {
		if k := s.Provider.APIKeySecret(); k != "" && prog.SecretsByName[k] != nil && !slices.Contains(out, k) {
			out = append(out, k)
			slices.Sort(out)
		}
	}
	return out
}

// exprSecrets are the secrets expressions (nil ones skipped) refer to,
// directly or through locals, sorted.
func exprSecrets(prog *compiler.Program, exprs ...hcl.Expression) []string {
	var out []string
	seen := map[string]bool{}
	var local func(name string)
	ref := func(root, name string) {
		switch root {
		case lang.RootSecret:
			if prog.SecretsByName[name] != nil && !slices.Contains(out, name) {
				out = append(out, name)
			}
		case lang.RootLocal:
			local(name)
		}
	}
	local = func(name string) {
		l := prog.LocalsByName[name]
		if l == nil || seen[name] {
			return
		}
		seen[name] = true
		for _, r := range l.Refs {
			ref(r.Root, r.Name)
		}
	}
	for _, e := range exprs {
		if e == nil {
			continue
		}
		for _, tr := range e.Variables() {
			if r, diags := lang.ParseRef(tr); !diags.HasErrors() && r != nil {
				ref(r.Root, r.Name)
			}
		}
	}
	slices.Sort(out)
	return out
}

// sourceText is an expression's source, from its file; "" for none.
func sourceText(e hcl.Expression) string {
	if e == nil {
		return ""
	}
	r := e.Range()
	b, err := os.ReadFile(r.Filename)
	if err != nil || r.End.Byte > len(b) || r.Start.Byte > r.End.Byte {
		return "?" + r.String()
	}
	return string(b[r.Start.Byte:r.End.Byte])
}
