package server

import (
	"context"
	"errors"
	"testing"
)

// engineChecker is an Engine that says whether it is ready.
type engineChecker struct {
	Engine
	err error
}

func (e engineChecker) Ready(context.Context) error { return e.err }

// TestReadyz: /readyz is 200 while the state and the engine answer, 503
// with Retry-After when one does not; a start is then refused with 503
// and Retry-After instead of accepted and failed; /healthz says the
// process lives.
func TestReadyz(t *testing.T) {
	ts := newTestServer(t, files{"greet.flow.hcl": greetFlow}, nil)
	var ready struct {
		Status string            `json:"status"`
		Checks map[string]string `json:"checks"`
	}
	if code := ts.code("GET", "/readyz", "", &ready); code != 200 || ready.Status != "ready" || ready.Checks["state"] != "ok" {
		t.Errorf("ready: %d %+v", code, ready)
	}
	down := newTestServer(t, files{"greet.flow.hcl": greetFlow}, func(o *Options) {
		o.Engine = engineChecker{err: errors.New("dial tcp 10.0.0.1:7233: connection refused")}
	})
	if code := down.code("GET", "/readyz", "", &ready); code != 503 || ready.Checks["engine"] != "unreachable" || ready.Checks["state"] != "ok" {
		t.Errorf("engine down: %d %+v", code, ready)
	}
	ts.store.Close()
	resp := ts.do("GET", "/readyz", "", &ready)
	if resp.StatusCode != 503 || ready.Checks["state"] != "unreachable" || resp.Header.Get("Retry-After") == "" {
		t.Errorf("state down: %d %+v %v", resp.StatusCode, ready, resp.Header)
	}
	var rr runReply
	resp = ts.do("POST", "/v1/flows/greet/runs", `{"inputs": {"name": "x"}}`, &rr)
	if resp.StatusCode != 503 || rr.Error.Code != "state_unavailable" || resp.Header.Get("Retry-After") == "" {
		t.Errorf("a start while the state is down: %d %+v", resp.StatusCode, rr)
	}
	if code := ts.code("GET", "/healthz", "", nil); code != 200 {
		t.Errorf("healthz: %d", code)
	}
}
