package server

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// TestGuard: without tokens, a request for a host name of another (DNS
// rebinding), from another site's page, or a write that is not JSON, is
// refused, and starts or decides nothing; the dashboard's own page writes
// with its CSRF token, and a client that is not a browser (no Origin)
// needs none. Hostile review, issue 34.
func TestGuard(t *testing.T) {
	ts := newTestServer(t, files{"greet.flow.hcl": greetFlow, "review.flow.hcl": reviewFlow}, func(o *Options) {
		o.AllowedHosts = []string{"flows.internal"}
	})
	port := ts.url[strings.LastIndex(ts.url, ":"):]
	evil := []string{"Host", "evil.example" + port}
	start := `{"inputs": {"name": "x"}}`
	for _, c := range []struct {
		name, method, path, body string
		headers                  []string
		want                     int
	}{
		{"a rebinding page lists runs", "GET", "/v1/runs", "", evil, 403},
		{"a rebinding page reads the dashboard", "GET", "/", "", evil, 403},
		{"a rebinding page starts a run", "POST", "/v1/flows/greet/runs", start, evil, 403},
		{"a form of another site starts a run", "POST", "/v1/flows/greet/runs", start, []string{"Content-Type", "text/plain", "Origin", "http://evil.example"}, 403},
		{"a text/plain post starts a run", "POST", "/v1/flows/greet/runs", start, []string{"Content-Type", "text/plain"}, 415},
		{"a post without a type starts a run", "POST", "/v1/flows/greet/runs", start, []string{"Content-Type", ""}, 415},
		{"another site's page reads the runs", "GET", "/v1/runs", "", []string{"Origin", "http://evil.example"}, 403},
		{"another site's page, JSON", "POST", "/v1/flows/greet/runs", start, []string{"Origin", "https://evil.example"}, 403},
		{"the server's own page without the CSRF token", "POST", "/v1/flows/greet/runs", start, []string{"Origin", ts.url}, 403},
		{"the probe, any host", "GET", "/healthz", "", evil, 200},
		{"a loopback name", "GET", "/v1/runs", "", []string{"Host", "localhost" + port}, 200},
		{"an IPv6 loopback", "GET", "/v1/runs", "", []string{"Host", "[::1]" + port}, 200},
		{"an allowed host", "GET", "/v1/runs", "", []string{"Host", "flows.internal" + port}, 200},
	} {
		if got := ts.code(c.method, c.path, c.body, nil, c.headers...); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
	var list struct {
		Runs []any `json:"runs"`
	}
	ts.code("GET", "/v1/runs", "", &list)
	if len(list.Runs) != 0 {
		t.Fatalf("refused requests started %d runs", len(list.Runs))
	}

	// The dashboard's page carries the CSRF token its writes send.
	resp := ts.do("GET", "/", "", nil)
	page := ts.body("/")
	m := regexp.MustCompile(`<meta name="flowctl-csrf" content="([0-9a-f]+)">`).FindStringSubmatch(page)
	if resp.StatusCode != 200 || m == nil {
		t.Fatalf("the dashboard's page: %d\n%s", resp.StatusCode, page)
	}
	browser := []string{"Origin", ts.url, csrfHeader, m[1]}
	run := ts.start("review", `{}`, browser...)
	ts.wait(run, "waiting")
	// A rebinding page cannot decide the approval, nor cancel the run.
	if code := ts.code("POST", "/v1/runs/"+run+"/approvals/check", `{"approved": true}`, nil, evil...); code != 403 {
		t.Errorf("a rebinding page decided: %d", code)
	}
	if code := ts.code("POST", "/v1/runs/"+run+"/cancel", "", nil, "Origin", "http://evil.example", "Content-Type", "application/json"); code != 403 {
		t.Errorf("another site cancelled: %d", code)
	}
	if code := ts.code("POST", "/v1/runs/"+run+"/approvals/check", `{"approved": true}`, nil, browser...); code != http.StatusOK {
		t.Errorf("the dashboard's decision: %d", code)
	}
	if got := ts.wait(run, "ok", "failed"); got.Status != "ok" {
		t.Errorf("the run: %+v", got)
	}
	// A client that is no browser (curl) needs no CSRF token.
	ts.start("greet", start)
}
