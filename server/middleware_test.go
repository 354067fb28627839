package server

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestErrorsLeakNothing: when the state fails, a client gets 500 with a
// generic message and the request's ID, never the error; the log has the
// error under that ID, and a line for every request (no query, no
// header).
func TestErrorsLeakNothing(t *testing.T) {
	ts := newTestServer(t, files{"greet.flow.hcl": greetFlow}, nil)
	ts.store.Close()
	var rr runReply
	resp := ts.do("GET", "/v1/runs?cursor=&limit=5", "", &rr, "Authorization", "Bearer s3cret")
	id := resp.Header.Get("X-Request-Id")
	if resp.StatusCode != 500 || rr.Error.Code != "internal" || rr.Error.RequestID != id || id == "" ||
		!strings.Contains(rr.Error.Message, id) || strings.Contains(rr.Error.Message, "closed") {
		t.Errorf("the reply: %d %+v (X-Request-Id %q)", resp.StatusCode, rr, id)
	}
	var failed, logged bool
	for line := range strings.Lines(ts.logs.String()) {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("a log line that is not JSON: %q", line)
		}
		if strings.Contains(line, "s3cret") || strings.Contains(line, "limit=") {
			t.Errorf("the log has a token or a query: %s", line)
		}
		if rec["request_id"] != id {
			continue
		}
		switch rec["msg"] {
		case "request failed":
			failed = strings.Contains(rec["error"].(string), "closed")
		case "request":
			logged = rec["method"] == "GET" && rec["path"] == "/v1/runs" && rec["status"] == float64(500) && rec["duration_ms"] != nil
		}
	}
	if !failed || !logged {
		t.Errorf("the log (error %v, request %v):\n%s", failed, logged, ts.logs)
	}
}
