// Package mcpclient speaks to Model Context Protocol servers as a client:
// it starts a server's command (stdio) or reaches its URL (streamable
// HTTP), lists its tools and calls them, with the official Go SDK.
package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Server is how to reach a server: Command (run in Dir, with Env added to
// the process's environment) or URL (with Headers on every request).
type Server struct {
	Name    string
	Command []string
	Dir     string
	Env     map[string]string
	URL     string
	Headers map[string]string
}

// Session is a connection to a server. Its methods may be called
// concurrently.
type Session struct {
	name   string
	cs     *sdk.ClientSession
	stderr *tail

	mu    sync.Mutex
	tools []*sdk.Tool // nil until listed
}

// Tool is a tool as the server describes it.
type Tool struct {
	Name        string
	Description string
	InputSchema json.RawMessage
}

// Connect starts or reaches the server and opens a session. A server
// started by its command runs until Close.
func Connect(ctx context.Context, srv Server) (*Session, error) {
	client := sdk.NewClient(&sdk.Implementation{Name: "flowctl", Version: "1"}, nil)
	s := &Session{name: srv.Name, stderr: &tail{}}
	var t sdk.Transport
	switch {
	case len(srv.Command) > 0:
		cmd := exec.Command(srv.Command[0], srv.Command[1:]...)
		cmd.Dir = srv.Dir
		cmd.Env = os.Environ()
		for _, k := range sortedKeys(srv.Env) {
			cmd.Env = append(cmd.Env, k+"="+srv.Env[k])
		}
		cmd.Stderr = s.stderr
		t = &sdk.CommandTransport{Command: cmd}
	case srv.URL != "":
		hc := &http.Client{Transport: headerTransport{headers: srv.Headers, base: http.DefaultTransport}}
		t = &sdk.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: hc, MaxRetries: -1, DisableStandaloneSSE: true}
	default:
		return nil, fmt.Errorf("mcp_server %q has neither a command nor a url", srv.Name)
	}
	cs, err := client.Connect(ctx, t, nil)
	if err != nil {
		return nil, fmt.Errorf("connecting to mcp_server %q: %w%s", srv.Name, err, s.stderr.said())
	}
	s.cs = cs
	return s, nil
}

// Tools lists the server's tools, asking it once per session.
func (s *Session) Tools(ctx context.Context) ([]Tool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tools == nil {
		var all []*sdk.Tool
		for t, err := range s.cs.Tools(ctx, nil) {
			if err != nil {
				return nil, fmt.Errorf("listing the tools of mcp_server %q: %w%s", s.name, err, s.stderr.said())
			}
			all = append(all, t)
		}
		s.tools = all
	}
	out := make([]Tool, 0, len(s.tools))
	for _, t := range s.tools {
		schema, _ := json.Marshal(t.InputSchema)
		if t.InputSchema == nil {
			schema = []byte(`{"type":"object"}`)
		}
		out = append(out, Tool{Name: t.Name, Description: t.Description, InputSchema: schema})
	}
	return out, nil
}

// Tool finds the tool named name, or says which tools there are.
func (s *Session) Tool(ctx context.Context, name string) (Tool, error) {
	tools, err := s.Tools(ctx)
	if err != nil {
		return Tool{}, err
	}
	var names []string
	for _, t := range tools {
		if t.Name == name {
			return t, nil
		}
		names = append(names, t.Name)
	}
	list := "none"
	if len(names) > 0 {
		list = strings.Join(names, ", ")
	}
	return Tool{}, fmt.Errorf("mcp_server %q has no tool named %q; its tools are %s", s.name, name, list)
}

// Result is what a tool call returned: the text of its content, its
// structured content (nil when none) and whether the tool reported an
// error.
type Result struct {
	Text       string
	Structured json.RawMessage
	IsError    bool
}

// Call calls the tool with the arguments (a JSON object; nil for none).
func (s *Session) Call(ctx context.Context, tool string, args json.RawMessage) (*Result, error) {
	params := &sdk.CallToolParams{Name: tool}
	if len(args) > 0 {
		params.Arguments = args
	}
	res, err := s.cs.CallTool(ctx, params)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("calling tool %q of mcp_server %q: %w%s", tool, s.name, err, s.stderr.said())
	}
	out := &Result{IsError: res.IsError}
	var texts []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			texts = append(texts, c.Text)
		default:
			if b, err := json.Marshal(c); err == nil {
				texts = append(texts, string(b))
			}
		}
	}
	out.Text = strings.Join(texts, "\n")
	if res.StructuredContent != nil {
		if out.Structured, err = json.Marshal(res.StructuredContent); err != nil {
			return nil, fmt.Errorf("tool %q of mcp_server %q returned structured content that is not JSON: %w", tool, s.name, err)
		}
	}
	return out, nil
}

// Close ends the session, and the server's process when it started one.
func (s *Session) Close() error { return s.cs.Close() }

// headerTransport adds headers to each request.
type headerTransport struct {
	headers map[string]string
	base    http.RoundTripper
}

func (t headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range t.headers {
			req.Header.Set(k, v)
		}
	}
	return t.base.RoundTrip(req)
}

// tail keeps the last lines a server printed on its standard error, for
// the errors of a server that would not start or stopped.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailBytes = 2048

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailBytes {
		t.buf = t.buf[len(t.buf)-tailBytes:]
	}
	return len(p), nil
}

// said is what the server printed, as the end of an error message.
func (t *tail) said() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.TrimSpace(string(t.buf))
	if s == "" {
		return ""
	}
	return "; the server printed: " + s
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
