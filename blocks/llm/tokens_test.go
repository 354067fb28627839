package llm

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flowctl/flowctl/blocks"
	openai "github.com/sashabaranov/go-openai"
)

// fakeClock is a clock whose Sleep only moves its time on, recording
// each wait.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sleeps = append(c.sleeps, d)
	c.now = c.now.Add(d)
	return nil
}

// TestPromptTokens: OpenAI's models are counted with their own
// encoding (embedded: nothing is downloaded), others estimated with
// cl100k_base; a chat message costs its text and role and 3 tokens, the
// reply 3 more.
func TestPromptTokens(t *testing.T) {
	r := &request{model: "gpt-4o-mini", messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hello world"}}}
	n, exact := promptTokens(r)
	if !exact || n != 3+1+2+3 {
		t.Errorf("gpt-4o-mini: %d tokens, exact %v; want 9, exact", n, exact)
	}
	r.model = "llama3.1:8b"
	if _, exact := promptTokens(r); exact {
		t.Errorf("llama3.1:8b counted as exact; it is an estimate")
	}
	r.messages[0].Content = strings.Repeat("word ", 1000)
	if n, _ := promptTokens(r); n < 1000 || n > 1010 {
		t.Errorf("1000 words are %d tokens", n)
	}
}

// TestTPMWaits: a provider with tpm = 100 sends the first request at
// once; its reply says it used 95 tokens, so the second request waits
// for the bucket to hold its prompt again — exactly (prompt - 5) tokens
// at 100 a minute — before it is sent. The clock is the test's.
func TestTPMWaits(t *testing.T) {
	var mu sync.Mutex
	var sent []time.Time
	clk := &fakeClock{now: time.Unix(1_000_000, 0)}
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		sent = append(sent, clk.Now())
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": "x", "object": "chat.completion", "model": "m",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": "ok"}}},
			"usage":   map[string]any{"prompt_tokens": 50, "completion_tokens": 45, "total_tokens": 95},
		})
	})
	e := NewExecutor(Config{})
	p := &blocks.Provider{Name: "local", BaseURL: s.url(), TPM: 100}
	call := builtinCall(t, "Count the tokens of this prompt.")
	call.Provider = p
	tr, err := e.transportFor(call)
	if err != nil {
		t.Fatal(err)
	}
	tr.tokens.clock = clk
	for range 2 {
		if _, err := e.Execute(testCtx(t), call); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	n, _ := promptTokens(&request{model: DefaultModel, messages: []openai.ChatCompletionMessage{{Role: "user", Content: "Count the tokens of this prompt."}}})
	if len(sent) != 2 || len(clk.sleeps) != 1 {
		t.Fatalf("%d requests, waits %v; want 2 requests and one wait", len(sent), clk.sleeps)
	}
	want := time.Duration(float64(n-5) * 0.6 * float64(time.Second))
	if d := clk.sleeps[0]; math.Abs(float64(d-want)) > float64(time.Millisecond) {
		t.Errorf("waited %s; want %s ((%d - 5) tokens at 100 a minute)", d, want, n)
	}
	if got := sent[1].Sub(sent[0]); got != clk.sleeps[0] {
		t.Errorf("the second request was sent %s after the first; want after the wait, %s", got, clk.sleeps[0])
	}

	// A prompt larger than a minute of the limit is never sent.
	mu.Unlock()
	defer mu.Lock()
	big := builtinCall(t, strings.Repeat("word ", 200))
	big.Provider = p
	_, err = e.Execute(testCtx(t), big)
	if err == nil || !strings.Contains(err.Error(), `more than the tpm of provider "local" (100 tokens a minute) lets through`) {
		t.Errorf("a prompt over the limit: %v", err)
	}
	mu.Lock()
	if len(sent) != 2 {
		t.Errorf("%d requests; the prompt over the limit was sent", len(sent))
	}
	mu.Unlock()
}
