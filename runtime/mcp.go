package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/mcpclient"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/lang/jsonval"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// mcpConnectTimeout bounds starting or reaching an MCP server.
const mcpConnectTimeout = 60 * time.Second

// mcpPool holds a run's sessions with its MCP servers: each server is
// started or reached once, when a step first needs it, and closed when
// the run ends.
type mcpPool struct {
	mu       sync.Mutex
	sessions map[string]*mcpEntry
	closed   bool
}

type mcpEntry struct {
	ready chan struct{} // closed when s or err is set
	s     *mcpclient.Session
	err   error
}

// mcpSession returns the session with the flow's server name, connecting
// when none is open.
func (r *run) mcpSession(ctx context.Context, name string) (*mcpclient.Session, error) {
	srv := r.prog.MCPServersByName[name]
	if srv == nil {
		return nil, fmt.Errorf("flow %q declares no mcp_server named %q", r.prog.Flow.Name, name)
	}
	p := &r.mcp
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, fmt.Errorf("the run has ended")
	}
	if p.sessions == nil {
		p.sessions = map[string]*mcpEntry{}
	}
	e := p.sessions[name]
	if e == nil {
		e = &mcpEntry{ready: make(chan struct{})}
		p.sessions[name] = e
		go func() {
			cfg, err := r.mcpConfig(srv)
			if err == nil {
				cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), mcpConnectTimeout)
				e.s, err = mcpclient.Connect(cctx, cfg)
				cancel()
			}
			e.err = err
			close(e.ready)
		}()
	}
	p.mu.Unlock()
	select {
	case <-e.ready:
		return e.s, e.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// mcpConfig is how to reach a server, its env and headers evaluated.
func (r *run) mcpConfig(srv *lang.MCPServer) (mcpclient.Server, error) {
	cfg := mcpclient.Server{Name: srv.Name, Command: srv.Command, Dir: r.prog.Dir, URL: srv.URL}
	var err error
	if cfg.Env, err = r.stringMap(srv.Env, "env", srv.Name); err != nil {
		return cfg, err
	}
	cfg.Headers, err = r.stringMap(srv.Headers, "headers", srv.Name)
	return cfg, err
}

// stringMap evaluates a server's env or headers (nil: none) to a map of
// strings; sensitive values in it are redacted from what the run shows.
func (r *run) stringMap(expr hcl.Expression, what, server string) (map[string]string, error) {
	if expr == nil {
		return nil, nil
	}
	v, _, diags := r.scope.Eval(expr, nil)
	if diags.HasErrors() {
		return nil, fmt.Errorf("the %s of mcp_server %q: %s", what, server, r.redact.redact(lang.ErrorSentence(diags, false)))
	}
	if lang.IsSensitive(v) {
		r.redact.addValue(v)
	}
	v, _ = v.UnmarkDeep()
	if !v.IsWhollyKnown() {
		return nil, fmt.Errorf("the %s of mcp_server %q is not known: an input or a secret it uses has no value", what, server)
	}
	v, err := convert.Convert(v, cty.Map(cty.String))
	if err != nil {
		return nil, fmt.Errorf("the %s of mcp_server %q must be a map of strings", what, server)
	}
	out := map[string]string{}
	if v.IsNull() {
		return out, nil
	}
	for k, e := range v.AsValueMap() {
		if !e.IsNull() {
			out[k] = e.AsString()
		}
	}
	return out, nil
}

// closeMCP ends the run's sessions, stopping the servers it started.
func (r *run) closeMCP() {
	p := &r.mcp
	p.mu.Lock()
	p.closed = true
	entries := p.sessions
	p.mu.Unlock()
	for _, e := range entries {
		<-e.ready
		if e.s != nil {
			e.s.Close()
		}
	}
}

// mcpExecutor runs the mcp block: a call of a tool of one of the flow's
// MCP servers.
type mcpExecutor struct{ r *run }

func (e mcpExecutor) Execute(ctx context.Context, call *blocks.Call) (*blocks.Result, error) {
	server, tool := call.Inputs["server"].AsString(), call.Inputs["tool"].AsString()
	var args json.RawMessage
	if a := call.Inputs["arguments"]; !a.IsNull() {
		if !(a.Type().IsObjectType() || a.Type().IsMapType()) {
			return nil, fmt.Errorf("the arguments of a tool are an object, not %s", lang.FriendlyTypeName(a.Type()))
		}
		var err error
		if args, err = jsonval.Marshal(a); err != nil {
			return nil, err
		}
	}
	s, err := e.r.mcpSession(ctx, server)
	if err != nil {
		return nil, err
	}
	if _, err := s.Tool(ctx, tool); err != nil {
		return nil, err
	}
	res, err := s.Call(ctx, tool, args)
	if err != nil {
		return nil, err
	}
	if res.IsError {
		return nil, fmt.Errorf("tool %q of mcp_server %q failed: %s", tool, server, call.Show(clip(res.Text, 2000)))
	}
	result := cty.StringVal(res.Text)
	raw := res.Structured
	if raw == nil && json.Valid([]byte(res.Text)) {
		raw = json.RawMessage(res.Text)
	}
	if raw != nil {
		if result, err = jsonval.Decode(raw); err != nil {
			return nil, fmt.Errorf("tool %q of mcp_server %q returned a result that is not JSON: %v", tool, server, err)
		}
	}
	return &blocks.Result{Outputs: map[string]cty.Value{"result": result, "text": cty.StringVal(res.Text)}}, nil
}

// MCPServerTools are the tools of one of a flow's MCP servers, or why
// they could not be listed.
type MCPServerTools struct {
	Server *lang.MCPServer
	Tools  []mcpclient.Tool
	Err    error
}

// ListMCPTools starts or reaches each MCP server of prog, as a run with
// opts would (its env and headers from opts' inputs and secrets), and
// lists its tools.
func ListMCPTools(ctx context.Context, prog *compiler.Program, opts Options) []MCPServerTools {
	r, _ := newRun(prog, opts) // a missing secret is reported by the server that needs it
	defer r.closeMCP()
	out := make([]MCPServerTools, len(prog.MCPServers))
	var wg sync.WaitGroup
	for i, srv := range prog.MCPServers {
		out[i].Server = srv
		wg.Go(func() {
			s, err := r.mcpSession(ctx, srv.Name)
			if err == nil {
				out[i].Tools, err = s.Tools(ctx)
			}
			out[i].Err = err
		})
	}
	wg.Wait()
	return out
}
