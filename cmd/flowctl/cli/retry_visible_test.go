package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestRateLimitRetryIsVisible (issue 34): an llm call the provider answers
// 429 is tried again after the wait it asks for, and the run says so: a
// step_notice event with the wait, the retries and the time waited in the
// step_finished event, and in the step's line.
func TestRateLimitRetryIsVisible(t *testing.T) {
	model, _ := fakeModel(t)
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1)%2 == 1 {
			w.Header().Set("Retry-After-Ms", "120")
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write([]byte(`{"error":{"message":"Rate limit reached","type":"requests"}}`))
			return
		}
		r.URL.Host, r.URL.Scheme = strings.TrimPrefix(model.URL, "http://"), "http"
		resp, err := http.DefaultTransport.RoundTrip(r.Clone(r.Context()))
		if err != nil {
			http.Error(w, err.Error(), 502)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(resp.StatusCode)
		var v any
		json.NewDecoder(resp.Body).Decode(&v)
		json.NewEncoder(w).Encode(v)
	}))
	t.Cleanup(srv.Close)
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	t.Setenv("OPENAI_API_KEY", "")
	dir := t.TempDir()
	flow := filepath.Join(dir, "ask.flow.hcl")
	os.WriteFile(flow, []byte(`flow "ask" {}

step "ask" {
  use    = "llm"
  prompt = "Say hello."
}
`), 0o644)

	code, out, errOut := runCLI(t, "apply", "--auto-approve", "--json", "--no-cache", flow)
	if code != 0 {
		t.Fatalf("apply exited %d:\n%s%s", code, out, errOut)
	}
	var notice, finished map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var e map[string]any
		json.Unmarshal([]byte(line), &e)
		switch e["type"] {
		case "step_notice":
			notice = e
		case "step_finished":
			finished = e
		}
	}
	if notice == nil || notice["kind"] != "retry" || notice["wait_ms"].(float64) < 120 ||
		!strings.Contains(notice["message"].(string), "Rate limit reached") || !strings.Contains(notice["message"].(string), "trying again in") {
		t.Errorf("step_notice: %v", notice)
	}
	if finished == nil || finished["retries"] != 1.0 || finished["waited_ms"].(float64) < 120 || finished["status"] != "ok" {
		t.Errorf("step_finished: %v", finished)
	}

	code, out, errOut = runCLI(t, "apply", "--auto-approve", "--no-cache", flow)
	if code != 0 || !strings.Contains(out, "ask") || !strings.Contains(out, "1 retry, waited ") {
		t.Errorf("apply exited %d, the step's line does not show the retry:\n%s%s", code, out, errOut)
	}
}
