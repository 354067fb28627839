package server

import (
	"strings"
	"testing"
)

// TestLiveServerTakesUp: a run interrupted while other servers of its
// state run (its own server stopped) is taken up by a live server, by
// itself, and ends ok there; not by a server with NoTakeUp.
func TestLiveServerTakesUp(t *testing.T) {
	fs := files{"greet.flow.hcl": greetFlow}
	a := newTestServer(t, fs, nil)
	manual := newTestServer(t, fs, func(o *Options) { o.Store = a.store; o.NoTakeUp = true })
	live := newTestServer(t, fs, func(o *Options) { o.Store = a.store })
	id := a.start("greet", `{"inputs": {"name": "ada", "wait": "2s"}}`)
	a.wait(id, "running")
	a.srv.Close() // the run is interrupted
	run := live.wait(id, "ok")
	if run.Outputs["greeting"] != "Hello, ada!" {
		t.Errorf("the run taken up: %+v", run)
	}
	if !strings.Contains(live.logs.String(), "run taken up") {
		t.Errorf("the live server's log does not say it took the run up:\n%s", live.logs.String())
	}
	if manual.srv.liveRun(id) != nil || strings.Contains(manual.logs.String(), "run taken up") {
		t.Errorf("a server with NoTakeUp took the run up:\n%s", manual.logs.String())
	}
}
