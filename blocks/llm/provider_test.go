package llm

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flowctl/flowctl/blocks"
)

// TestProviderLimitsShared: two Executors (two runs of a
// process, or the executors of serve and of a thinker) calling one
// provider with concurrency 1 never have two of its requests in flight,
// and a step's request carries the provider's key to the provider's
// server, not the environment's.
func TestProviderLimitsShared(t *testing.T) {
	s := newServer(t, ok("hi"))
	s.delay = 50 * time.Millisecond
	env := newServer(t, ok("env"))
	p := &blocks.Provider{Name: "local", BaseURL: s.url(), APIKey: "provider-key-0123456789", Concurrency: 1}
	var wg sync.WaitGroup
	for range 2 {
		e := NewExecutor(testConfig(env))
		for range 3 {
			wg.Go(func() {
				call := builtinCall(t, "hello")
				call.Provider = p
				if _, err := e.Execute(testCtx(t), call); err != nil {
					t.Error(err)
				}
			})
		}
	}
	wg.Wait()
	if got := len(s.recorded()); got != 6 {
		t.Fatalf("the provider's server got %d requests; want 6", got)
	}
	if n := s.maxInFlight.Load(); n != 1 {
		t.Errorf("%d requests were in flight at once; the provider allows 1", n)
	}
	if got := s.recorded()[0].header.Get("Authorization"); got != "Bearer provider-key-0123456789" {
		t.Errorf("Authorization %q", got)
	}
	if n := len(env.recorded()); n != 0 {
		t.Errorf("the environment's server got %d requests", n)
	}
}

// TestProviderErrorsNameIt: a provider's refused key is said to be its
// api_key, not OPENAI_API_KEY, and the key is not in the message.
func TestProviderErrorsNameIt(t *testing.T) {
	s := newServer(t, fail(401, "Incorrect API key provided: bad-key-0123456789"))
	e := NewExecutor(Config{})
	call := builtinCall(t, "hello")
	call.Provider = &blocks.Provider{Name: "remote", BaseURL: s.url(), APIKey: "bad-key-0123456789"}
	_, err := e.Execute(testCtx(t), call)
	if err == nil || !strings.Contains(err.Error(), `check the api_key of provider "remote"`) || strings.Contains(err.Error(), "bad-key-0123456789") {
		t.Errorf("error: %v", err)
	}
}
