package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoIn struct {
	Text string `json:"text" jsonschema:"what to echo"`
}

type echoOut struct {
	Echo string `json:"echo"`
}

// testServer serves two tools over streamable HTTP to requests with the
// header X-Key: k.
func testServer(t *testing.T) string {
	srv := sdk.NewServer(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "echo", Description: "Echoes a text"},
		func(_ context.Context, _ *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, echoOut, error) {
			return nil, echoOut{Echo: in.Text}, nil
		})
	sdk.AddTool(srv, &sdk.Tool{Name: "fail", Description: "Fails"},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return nil, nil, errors.New("it broke")
		})
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Key") != "k" {
			http.Error(w, "no key", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts.URL
}

func TestSessionOverHTTP(t *testing.T) {
	url := testServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := Connect(ctx, Server{Name: "t", URL: url}); err == nil || !strings.Contains(err.Error(), `connecting to mcp_server "t"`) {
		t.Errorf("without the header: %v", err)
	}
	s, err := Connect(ctx, Server{Name: "t", URL: url, Headers: map[string]string{"X-Key": "k"}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tool, err := s.Tool(ctx, "echo")
	if err != nil || tool.Description != "Echoes a text" || !strings.Contains(string(tool.InputSchema), `"text"`) {
		t.Errorf("echo: %+v, %v", tool, err)
	}
	if _, err := s.Tool(ctx, "ecko"); err == nil || !strings.Contains(err.Error(), `no tool named "ecko"; its tools are echo, fail`) {
		t.Errorf("unknown tool: %v", err)
	}
	res, err := s.Call(ctx, "echo", json.RawMessage(`{"text": "hi"}`))
	if err != nil || res.IsError || string(res.Structured) != `{"echo":"hi"}` || !strings.Contains(res.Text, "hi") {
		t.Errorf("echo call: %+v, %v", res, err)
	}
	res, err = s.Call(ctx, "fail", nil)
	if err != nil || !res.IsError || !strings.Contains(res.Text, "it broke") {
		t.Errorf("failing call: %+v, %v", res, err)
	}
}

// A command that is not there: the error says which server.
func TestConnectMissingCommand(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := Connect(ctx, Server{Name: "gone", Command: []string{"./no-such-server"}, Dir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), `mcp_server "gone"`) {
		t.Errorf("err = %v", err)
	}
}
