package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/flowctl/flowctl/runtime/state"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCP: flowctl mcp over stdio, spoken to by the SDK's client: the
// flows are tools with their schemas (expose = false left out), a call
// runs the flow and returns its outputs, bad arguments are an error result
// (not a protocol error), progress is reported, the flow's source and the
// run's record are resources.
func TestMCP(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	dir := t.TempDir()
	src, err := os.ReadFile("../../../examples/hello/hello.flow.hcl")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "hello.flow.hcl"), src, 0o644)
	os.MkdirAll(filepath.Join(dir, "hidden"), 0o755)
	os.WriteFile(filepath.Join(dir, "hidden", "secret.flow.hcl"), []byte("flow \"internal\" {\n  expose = false\n}\n"), 0o644)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	progress := make(chan float64, 100)
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(ctx context.Context, req *sdk.ProgressNotificationClientRequest) {
			progress <- req.Params.Progress
		},
	})
	session, err := client.Connect(ctx, &sdk.CommandTransport{Command: flowctl(t, dir, "mcp", "--sandbox", "inprocess", ".")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()

	tools, err := session.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) != 1 || tools.Tools[0].Name != "hello" || tools.Tools[0].Description != "Greet a list of people and count the greetings" {
		t.Fatalf("tools: %+v", tools.Tools)
	}
	schema, _ := json.Marshal(tools.Tools[0].InputSchema)
	if !strings.Contains(string(schema), `"names":{"default":["Ada","Grace","Linus"],"description":"Who to greet","items":{"type":"string"},"type":"array"}`) {
		t.Errorf("input schema: %s", schema)
	}

	params := &sdk.CallToolParams{Name: "hello", Arguments: map[string]any{"names": []string{"Bo", "Cy"}}}
	params.SetProgressToken("p1")
	res, err := session.CallTool(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(res.StructuredContent)
	if res.IsError || !strings.Contains(string(out), `"Hello, Bo!"`) {
		t.Fatalf("call: error %v, %s %+v", res.IsError, out, res.Content)
	}
	select {
	case <-progress:
	case <-time.After(time.Minute):
		t.Error("no progress notification")
	}

	res, err = session.CallTool(ctx, &sdk.CallToolParams{Name: "hello", Arguments: map[string]any{"names": "not a list", "nmes": 1}})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*sdk.TextContent).Text
	if !res.IsError || !strings.Contains(text, `Argument "nmes" is not in the JSON Schema`) || !strings.Contains(text, `Argument "names" is a string`) {
		t.Errorf("bad arguments: %v %s", res.IsError, text)
	}

	r, err := session.ReadResource(ctx, &sdk.ReadResourceParams{URI: "flowctl://flows/hello"})
	if err != nil || !strings.Contains(r.Contents[0].Text, `flow "hello"`) {
		t.Errorf("flow resource: %v %+v", err, r)
	}
	// A new flow file becomes a tool.
	os.WriteFile(filepath.Join(dir, "bye.flow.hcl"), []byte("flow \"bye\" {}\n"), 0o644)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		tools, err := session.ListTools(ctx, nil)
		if err == nil && len(tools.Tools) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the new flow is not a tool: %+v %v", tools, err)
		}
	}
	st, err := state.Open(filepath.Join(dir, ".flowctl"))
	if err != nil {
		t.Fatal(err)
	}
	run, err := st.LatestRun("hello", "", "ok")
	st.Close()
	if err != nil || run == nil {
		t.Fatalf("the call's run: %v %v", run, err)
	}
	r, err = session.ReadResource(ctx, &sdk.ReadResourceParams{URI: "flowctl://runs/" + run.ID})
	if err != nil || !strings.Contains(r.Contents[0].Text, `"status": "ok"`) || !strings.Contains(r.Contents[0].Text, `"step": "greet"`) {
		t.Errorf("run resource: %v %+v", err, r)
	}
}

// TestMCPHTTP: flowctl mcp --http with a token: a request without it is
// refused; the SDK's client with it lists and calls tools; a call the
// client cancels cancels its run.
func TestMCPHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "slow.flow.hcl"), []byte(`flow "slow" {
  description = "Waits"
}

input "wait" {
  type    = string
  default = "1ms"
}

step "pause" {
  use      = "sleep"
  duration = input.wait
}

output "slept" {
  value = step.pause.slept_ms >= 0
}
`), 0o644)
	cmd := flowctl(t, dir, "mcp", "--http", "127.0.0.1:0", ".")
	cmd.Env = append(cmd.Env, "FLOWCTL_TOKEN=t0k3n-0123456789abcdef")
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	sc := bufio.NewScanner(stderr)
	url := ""
	for sc.Scan() {
		if m := regexp.MustCompile(`on (http://127\.0\.0\.1:\d+)`).FindStringSubmatch(sc.Text()); m != nil {
			url = m[1]
			break
		}
	}
	if url == "" {
		t.Fatal("mcp --http did not say where it listens")
	}
	go io.Copy(io.Discard, stderr)
	if resp, err := http.Post(url, "application/json", strings.NewReader(`{}`)); err != nil || resp.StatusCode != 401 {
		t.Fatalf("without the token: %v %v", resp, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	session, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: tokenTransport("t0k3n-0123456789abcdef")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	res, err := session.CallTool(ctx, &sdk.CallToolParams{Name: "slow", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}
	// A call cancelled by the client: its run is recorded cancelled.
	cctx, ccancel := context.WithCancel(ctx)
	go func() { time.Sleep(500 * time.Millisecond); ccancel() }()
	if _, err := session.CallTool(cctx, &sdk.CallToolParams{Name: "slow", Arguments: map[string]any{"wait": "1h"}}); err == nil {
		t.Error("a cancelled call returned no error")
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		st, err := state.Open(filepath.Join(dir, ".flowctl"))
		if err != nil {
			t.Fatal(err)
		}
		run, _ := st.LatestRun("slow", "", "")
		st.Close()
		if run != nil && run.Status == "cancelled" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the cancelled call's run: %+v", run)
		}
	}
}

// tokenTransport adds a bearer token to every request.
type tokenTransport string

func (t tokenTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(t))
	return http.DefaultTransport.RoundTrip(r)
}
