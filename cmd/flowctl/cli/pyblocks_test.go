package cli

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// statsExample copies examples/stats, whose blocks are python, to a
// directory of its own.
func statsExample(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../../../examples/stats")); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(dir + "/.flowctl")
	return dir
}

// TestPythonServe: serve runs a flow of python blocks, an inline one and
// one of a block file: the outputs, and what the blocks print as step_log
// events.
func TestPythonServe(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	needPython(t)
	p := startServe(t, statsExample(t), nil)
	var r runReply
	if code := p.do("POST", "/v1/flows/stats/runs", `{"inputs": {"column": "rain_mm"}}`, &r); code != 202 || r.RunID == "" {
		t.Fatalf("start: %d %+v", code, r)
	}
	evs := p.events(r.RunID, "")
	last := evs[len(evs)-1]
	if last.event != "run_finished" || !strings.Contains(last.data, `"status":"ok"`) ||
		!strings.Contains(last.data, `"data/lisbon.csv":0.1`) || !strings.Contains(last.data, `"widest_range":6`) {
		t.Fatalf("run_finished: %+v", last)
	}
	logs := 0
	for _, e := range evs {
		if e.event == "step_log" && strings.Contains(e.data, `"step":"column"`) && strings.Contains(e.data, "5 values of rain_mm") {
			logs++
		}
	}
	if logs != 2 {
		t.Errorf("%d step_log events of the column step's prints, want 2: %+v", logs, evs)
	}
}

// TestPythonMCP: a flow of python blocks is an MCP tool; a call runs it.
func TestPythonMCP(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	needPython(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	session, err := client.Connect(ctx, &sdk.CommandTransport{Command: flowctl(t, statsExample(t), "mcp", ".")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	res, err := session.CallTool(ctx, &sdk.CallToolParams{Name: "stats", Arguments: map[string]any{"files": []string{"data/berlin.csv"}}})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(res.StructuredContent)
	if res.IsError || !strings.Contains(string(out), `"means":{"data/berlin.csv":22}`) || !strings.Contains(string(out), `"widest_range":4.5`) {
		t.Fatalf("call: error %v, %s %+v", res.IsError, out, res.Content)
	}
	// A python block's failure is the call's error, at the block's line.
	res, err = session.CallTool(ctx, &sdk.CallToolParams{Name: "stats", Arguments: map[string]any{"column": "wind"}})
	if err != nil {
		t.Fatal(err)
	}
	text := ""
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			text += tc.Text
		}
	}
	if !res.IsError || !strings.Contains(text, "KeyError") || !strings.Contains(text, "no column 'wind'") {
		t.Errorf("a failing call: error %v, %s", res.IsError, text)
	}
}
