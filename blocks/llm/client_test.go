package llm

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestRetryAfter429(t *testing.T) {
	s := newServer(t, fail(429, "Rate limit reached", "Retry-After", "1"), ok("done"))
	res, err := NewExecutor(testConfig(s)).Execute(testCtx(t), builtinCall(t, "hi"))
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Outputs["text"].AsString(); got != "done" {
		t.Errorf("text = %q", got)
	}
	reqs := s.recorded()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	// Measured by the server: the second request came at least the
	// Retry-After after the first.
	if gap := reqs[1].at.Sub(reqs[0].at); gap < time.Second {
		t.Errorf("the retry came %s after the 429, before the Retry-After of 1s", gap)
	}
}

func TestRetryAfterHTTPDate(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	h := http.Header{}
	h.Set("Retry-After", now.Add(3*time.Second).Format(http.TimeFormat))
	if d, ok := parseRetryAfter(h, now); !ok || d != 3*time.Second {
		t.Errorf("HTTP date: %s, %v", d, ok)
	}
	h.Set("Retry-After", "2")
	if d, ok := parseRetryAfter(h, now); !ok || d != 2*time.Second {
		t.Errorf("seconds: %s, %v", d, ok)
	}
	h.Set("Retry-After", "soon")
	if _, ok := parseRetryAfter(h, now); ok {
		t.Errorf("a bad Retry-After was read")
	}
	h.Set("Retry-After-Ms", "250")
	if d, ok := parseRetryAfter(h, now); !ok || d != 250*time.Millisecond {
		t.Errorf("retry-after-ms: %s, %v", d, ok)
	}
}

func TestRetryOn500(t *testing.T) {
	s := newServer(t, fail(500, "internal error"), fail(503, "overloaded"), ok("done"))
	res, err := NewExecutor(testConfig(s)).Execute(testCtx(t), builtinCall(t, "hi"))
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Outputs["text"].AsString(); got != "done" {
		t.Errorf("text = %q", got)
	}
	if n := len(s.recorded()); n != 3 {
		t.Errorf("%d requests, want 3", n)
	}
}

func TestRetriesRunOut(t *testing.T) {
	s := newServer(t, fail(502, "bad gateway"))
	cfg := testConfig(s)
	cfg.MaxRetries = 2
	_, err := NewExecutor(cfg).Execute(testCtx(t), builtinCall(t, "hi"))
	if err == nil || !strings.Contains(err.Error(), "502 Bad Gateway: bad gateway") || !strings.Contains(err.Error(), "after 3 tries") {
		t.Errorf("error = %v", err)
	}
	if n := len(s.recorded()); n != 3 {
		t.Errorf("%d requests, want 3 (1 + MaxRetries)", n)
	}

	cfg.MaxRetries = -1
	s2 := newServer(t, fail(500, "x"))
	cfg.BaseURL = s2.url()
	if _, err := NewExecutor(cfg).Execute(testCtx(t), builtinCall(t, "hi")); err == nil {
		t.Error("no error")
	}
	if n := len(s2.recorded()); n != 1 {
		t.Errorf("%d requests with retries off, want 1", n)
	}
}

// A server slower than the step's timeout: the call returns when the
// deadline passes. The server holds its reply until the test is over, so
// a call that waited for it would never return.
func TestDeadline(t *testing.T) {
	release := make(chan struct{})
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	defer close(release)
	ctx, cancel := context.WithTimeout(testCtx(t), 200*time.Millisecond)
	defer cancel()
	res, err := NewExecutor(testConfig(s)).Execute(ctx, builtinCall(t, "hi", bulletsField))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error = %v, want a deadline error", err)
	}
	if !strings.Contains(err.Error(), "before the step's timeout") {
		t.Errorf("error = %q", err)
	}
	if n := len(s.recorded()); n != 1 {
		t.Errorf("%d requests, want 1: a timed-out call is not retried", n)
	}
	if res == nil || res.Usage == nil {
		t.Errorf("result = %+v, want one with (zero) usage", res)
	}
}

// A Retry-After beyond the deadline is not waited for.
func TestRetryAfterBeyondDeadline(t *testing.T) {
	s := newServer(t, fail(429, "slow down", "Retry-After", "30"), ok("late"))
	ctx, cancel := context.WithTimeout(testCtx(t), 5*time.Second)
	defer cancel()
	_, err := NewExecutor(testConfig(s)).Execute(ctx, builtinCall(t, "hi"))
	if err == nil || !strings.Contains(err.Error(), "no time is left before the step's timeout") {
		t.Errorf("error = %v", err)
	}
	if n := len(s.recorded()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestRateLimit(t *testing.T) {
	s := newServer(t, ok("hi"))
	cfg := testConfig(s)
	cfg.RPM = 120 // 2 a second, burst 2
	e := NewExecutor(cfg)
	for range 3 {
		if _, err := e.Execute(testCtx(t), builtinCall(t, "hi")); err != nil {
			t.Fatal(err)
		}
	}
	reqs := s.recorded()
	if gap := reqs[2].at.Sub(reqs[0].at); gap < 450*time.Millisecond {
		t.Errorf("3 requests within %s at 120 a minute with a burst of 2; the third should wait about 500ms", gap)
	}
}

func TestRateLimitBeyondDeadline(t *testing.T) {
	s := newServer(t, ok("hi"))
	cfg := testConfig(s)
	cfg.RPM = 1
	e := NewExecutor(cfg)
	if _, err := e.Execute(testCtx(t), builtinCall(t, "hi")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(testCtx(t), time.Second)
	defer cancel()
	_, err := e.Execute(ctx, builtinCall(t, "hi"))
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "FLOWCTL_LLM_RPM") {
		t.Errorf("error = %v", err)
	}
	if n := len(s.recorded()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestBackoff(t *testing.T) {
	for try, want := range []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second} {
		for range 20 {
			if d := backoff(try); d < want/2 || d > want {
				t.Errorf("backoff(%d) = %s, want within [%s, %s]", try, d, want/2, want)
			}
		}
	}
	if d := backoff(40); d < backoffCap/2 || d > backoffCap {
		t.Errorf("backoff(40) = %s, want at most the cap", d)
	}
}
