package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/lang"
	"github.com/zclconf/go-cty/cty"
)

// fakeServer is an OpenAI-compatible server on loopback that answers from
// a script and records every request.
type fakeServer struct {
	*httptest.Server
	script []reply // request n gets script[min(n, len-1)]
	delay  time.Duration

	mu       sync.Mutex
	requests []recorded

	inFlight, maxInFlight atomic.Int32
}

// recorded is a request as the server saw it.
type recorded struct {
	at     time.Time
	body   map[string]any
	raw    string
	header http.Header
}

// reply answers the nth request.
type reply func(w http.ResponseWriter, r *http.Request)

func newServer(t testing.TB, script ...reply) *fakeServer {
	s := &fakeServer{script: script}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.Close)
	return s
}

func (s *fakeServer) handle(w http.ResponseWriter, r *http.Request) {
	now := time.Now()
	cur := s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	for {
		m := s.maxInFlight.Load()
		if cur <= m || s.maxInFlight.CompareAndSwap(m, cur) {
			break
		}
	}
	if r.URL.Path != "/v1/chat/completions" {
		http.NotFound(w, r)
		return
	}
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	json.Unmarshal(raw, &body)
	s.mu.Lock()
	n := len(s.requests)
	s.requests = append(s.requests, recorded{at: now, body: body, raw: string(raw), header: r.Header.Clone()})
	s.mu.Unlock()
	if s.delay > 0 {
		select {
		case <-time.After(s.delay):
		case <-r.Context().Done():
			return
		}
	}
	s.script[min(n, len(s.script)-1)](w, r)
}

func (s *fakeServer) url() string { return s.URL + "/v1" }

func (s *fakeServer) recorded() []recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]recorded(nil), s.requests...)
}

// ok replies with a chat completion whose content is content, using 10
// prompt and 5 completion tokens.
func ok(content string) reply {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "test-model",
			"choices": []any{map[string]any{
				"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": content},
			}},
			"usage": map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
		})
	}
}

// fail replies with an OpenAI error body, the given status and headers
// (name, value pairs).
func fail(status int, message string, header ...string) reply {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"error":{"message":%q,"type":"invalid_request_error"}}`, message)
	}
}

// failCode is fail with an error code.
func failCode(status int, code, message string) reply {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"error":{"message":%q,"type":"invalid_request_error","code":%q}}`, message, code)
	}
}

func testConfig(s *fakeServer) Config {
	return Config{BaseURL: s.url(), APIKey: "sk-test-key-0123456789", Model: "test-model"}
}

func llmBuiltin(t testing.TB) *blocks.Block {
	t.Helper()
	for _, b := range blocks.Builtins() {
		if b.Name == "llm" {
			return b
		}
	}
	t.Fatal("no llm built-in")
	return nil
}

// builtinCall is a call of the llm built-in with a prompt and the given
// declared output fields.
func builtinCall(t testing.TB, prompt string, declared ...*lang.Field) *blocks.Call {
	b := llmBuiltin(t)
	return &blocks.Call{
		Block: b,
		Inputs: map[string]cty.Value{
			"prompt":      cty.StringVal(prompt),
			"system":      cty.NullVal(cty.String),
			"model":       cty.NullVal(cty.String),
			"temperature": cty.NullVal(cty.Number),
			"max_tokens":  cty.NullVal(cty.Number),
		},
		Outputs: blocks.MergeOutputs(b.Outputs, declared),
		Step:    "summary",
	}
}

func outField(name string, ty cty.Type) *lang.Field {
	return &lang.Field{Name: name, Type: lang.TypeSpec{Type: ty}}
}

// messages returns the role and content of a recorded request's messages.
func messages(r recorded) [][2]string {
	var out [][2]string
	for _, m := range r.body["messages"].([]any) {
		m := m.(map[string]any)
		content, _ := m["content"].(string)
		out = append(out, [2]string{m["role"].(string), content})
	}
	return out
}

// responseFormat returns a recorded request's response_format, or nil.
func responseFormat(r recorded) map[string]any {
	f, _ := r.body["response_format"].(map[string]any)
	return f
}

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}
