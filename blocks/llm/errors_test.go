package llm

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/zclconf/go-cty/cty"
)

func TestMissingKey(t *testing.T) {
	_, err := NewExecutor(Config{}).Execute(testCtx(t), builtinCall(t, "hi"))
	if err == nil || !strings.Contains(err.Error(), "set OPENAI_API_KEY, or OPENAI_BASE_URL for a local OpenAI-compatible server") {
		t.Errorf("error = %v", err)
	}
}

func TestConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String() + "/v1"
	ln.Close()
	_, err = NewExecutor(Config{BaseURL: base}).Execute(testCtx(t), builtinCall(t, "hi"))
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"cannot reach the model server at " + base + ": ", "connection refused", "check OPENAI_BASE_URL"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "after") {
		t.Errorf("a refused connection is not retried: %v", err)
	}
}

func TestErrorsSayWhatToDo(t *testing.T) {
	const key = "sk-test-key-0123456789"
	tests := []struct {
		name     string
		reply    reply
		noKey    bool
		want     []string
		requests int
	}{
		{"key refused", fail(401, "Incorrect API key provided: "+key+"."), false,
			[]string{"refused the API key", "check OPENAI_API_KEY", "401"}, 1},
		{"key missing", fail(401, "You didn't provide an API key."), true,
			[]string{"requires an API key", "set OPENAI_API_KEY"}, 1},
		{"model not found", failCode(404, "model_not_found", "The model `nope` does not exist"), false,
			[]string{`the model "nope" was not found`, "FLOWCTL_MODEL"}, 1},
		{"ollama model not found", fail(404, `model "nope" not found, try pulling it first`), false,
			[]string{`the model "nope" was not found`, "FLOWCTL_MODEL"}, 1},
		{"wrong path", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }, false,
			[]string{"no chat completions endpoint", "OPENAI_BASE_URL"}, 1},
		{"no quota", failCode(429, "insufficient_quota", "You exceeded your current quota"), false,
			[]string{"no quota left"}, 1},
		{"bad request", fail(400, "messages too long"), false,
			[]string{"rejected the request (400 Bad Request: messages too long)"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, tt.reply)
			cfg := testConfig(s)
			if tt.noKey {
				cfg.APIKey = ""
			}
			call := builtinCall(t, "hi")
			call.Inputs["model"] = cty.StringVal("nope")
			_, err := NewExecutor(cfg).Execute(testCtx(t), call)
			if err == nil {
				t.Fatal("no error")
			}
			for _, want := range tt.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
			if strings.Contains(err.Error(), key) {
				t.Errorf("error shows the API key: %v", err)
			}
			if n := len(s.recorded()); n != tt.requests {
				t.Errorf("%d requests, want %d", n, tt.requests)
			}
		})
	}
}

func TestRefusal(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"","refusal":"I can't help with that."}}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`))
	})
	res, err := NewExecutor(testConfig(s)).Execute(testCtx(t), builtinCall(t, "x", bulletsField))
	if err == nil || !strings.Contains(err.Error(), "refused to answer: I can't help with that.") {
		t.Errorf("error = %v", err)
	}
	if res == nil || res.Usage.TotalTokens != 5 {
		t.Errorf("result = %+v, want the usage", res)
	}
}

func TestCancelled(t *testing.T) {
	release := make(chan struct{})
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	defer close(release)
	ctx, cancel := context.WithCancel(testCtx(t))
	go func() {
		for len(s.recorded()) == 0 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	_, err := NewExecutor(testConfig(s)).Execute(ctx, builtinCall(t, "hi"))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", err)
	}
}

// A server that takes neither json_schema nor json_object gets the schema
// in the system message only.
func TestJSONModeRejectedToo(t *testing.T) {
	s := newServer(t,
		fail(400, "json_schema is not supported"),
		fail(400, "response_format of type json_object is not supported"),
		ok(`{"bullets": ["a"]}`))
	if _, err := NewExecutor(testConfig(s)).Execute(testCtx(t), builtinCall(t, "Summarize", bulletsField)); err != nil {
		t.Fatal(err)
	}
	reqs := s.recorded()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	if f := responseFormat(reqs[2]); f != nil {
		t.Errorf("third response_format = %v, want none", f)
	}
	if sys := messages(reqs[2])[0]; sys[0] != "system" || !strings.Contains(sys[1], `"required":["bullets"]`) {
		t.Errorf("third system message = %q", sys)
	}
}

// TestShortKeyNotScrubbed (issue 50): a key such as a local server is
// run with (x, EMPTY, ollama) is not cut out of the words of a message;
// a key of eight characters or more is, where it is a whole token.
func TestShortKeyNotScrubbed(t *testing.T) {
	for _, c := range []struct{ key, msg, want string }{
		{"x", "please explain: x is not a key", "please explain: x is not a key"},
		{"EMPTY", "EMPTY is not a key; EMPTY_VALUE", "EMPTY is not a key; EMPTY_VALUE"},
		{"ollama", "ollama says: model not found", "ollama says: model not found"},
		{"sk-proj-0123", "Incorrect API key provided: sk-proj-0123.", "Incorrect API key provided: (OPENAI_API_KEY)."},
		{"sk-proj-0123", "key=sk-proj-0123&b=sk-proj-0123", "key=(OPENAI_API_KEY)&b=(OPENAI_API_KEY)"},
		{"sk-proj-0123", "sk-proj-0123", "(OPENAI_API_KEY)"},
		// Inside a longer word it is another word.
		{"sk-proj-0123", "xsk-proj-0123 sk-proj-01234 sk-proj-0123_a", "xsk-proj-0123 sk-proj-01234 sk-proj-0123_a"},
		{"sk-proj-0123", "ask-proj-0123 sk-proj-0123", "ask-proj-0123 (OPENAI_API_KEY)"},
		{"password", "passwords: password", "passwords: (OPENAI_API_KEY)"},
		// A key that begins or ends with what is not a letter or digit
		// is a token wherever it is.
		{"-----abcdefgh", "x-----abcdefgh", "x(OPENAI_API_KEY)"},
		{"ünïcödé1", "ünïcödé1ü ünïcödé1", "ünïcödé1ü (OPENAI_API_KEY)"},
	} {
		tr := &transport{apiKey: c.key}
		if got := tr.scrub(c.msg); got != c.want {
			t.Errorf("key %q: scrub(%q) = %q, want %q", c.key, c.msg, got, c.want)
		}
	}

	// As a step's error: a server that echoes the request's words.
	s := newServer(t, fail(400, "cannot explain this request"))
	cfg := testConfig(s)
	cfg.APIKey = "x"
	_, err := NewExecutor(cfg).Execute(testCtx(t), builtinCall(t, "hi"))
	if err == nil || !strings.Contains(err.Error(), "cannot explain this request") || strings.Contains(err.Error(), "(OPENAI_API_KEY)") {
		t.Errorf("error = %v", err)
	}
}
