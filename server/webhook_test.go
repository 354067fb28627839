package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/flowctl/flowctl/lang"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

const signedFlow = `flow "signed" {}

trigger "signed" {
  webhook {
    path   = "/hooks/signed"
    method = "PUT"
    verify = "hmac"
    header = "X-Sig"
    secret = secret.key
  }
}

secret "key" {}
`

const answersFlow = `flow "answers" {}

input "x" {
  type    = string
  default = "1"
}

input "wait" {
  type    = string
  default = "0s"
}

step "pause" {
  use      = "sleep"
  duration = input.wait
}

step "n" {
  use        = "value"
  value      = tonumber(input.x)
  depends_on = [step.pause]
}

output "n" { value = step.n.value }

trigger "wait" {
  webhook {
    path   = "/hooks/wait"
    verify = "none"
  }
  inputs  = { x = request.query.x, wait = lookup(request.query, "wait", "0s") }
  respond = "outputs"
  timeout = "100ms"
}
`

// TestWebhookAnswers: a webhook that waits for its run answers a failed
// run 500 with its ID and a generic message, a run that outlasts the
// timeout 504 with its ID; a wrong method is 405; a secret that is not
// set 500 (logged); two flows with one path 409.
func TestWebhookAnswers(t *testing.T) {
	ts := newTestServer(t, files{"answers.flow.hcl": answersFlow, "signed.flow.hcl": signedFlow, "other.flow.hcl": `flow "other" {}
trigger "same" {
  webhook {
    path   = "/hooks/signed"
    method = "PUT"
    verify = "none"
  }
}
`}, nil)
	var flow struct {
		Triggers []triggerJSON `json:"triggers"`
	}
	ts.code("GET", "/v1/flows/answers", "", &flow)
	if len(flow.Triggers) != 1 || fmt.Sprint(flow.Triggers[0]) != fmt.Sprint(triggerJSON{Name: "wait", Method: "POST", Path: "/hooks/wait", Verify: "none", Respond: "outputs"}) {
		t.Errorf("GET /v1/flows/answers: triggers %+v", flow.Triggers)
	}
	var rr runReply
	if code := ts.code("POST", "/hooks/wait?x=abc", "", &rr); code != http.StatusInternalServerError || rr.RunID == "" ||
		rr.Error.Code != "run_failed" || strings.Contains(rr.Error.Message, "abc") {
		t.Errorf("a failed run: %d %+v", code, rr)
	}
	rr = runReply{}
	if code := ts.code("POST", "/hooks/wait?x=2&wait=5s", "", &rr); code != http.StatusGatewayTimeout || rr.RunID == "" || rr.Error.Code != "timeout" {
		t.Errorf("a run over the timeout: %d %+v", code, rr)
	}
	var out struct {
		RunID   string         `json:"run_id"`
		Outputs map[string]any `json:"outputs"`
	}
	if code := ts.code("POST", "/hooks/wait?x=7", "", &out); code != http.StatusOK || out.Outputs["n"] != float64(7) {
		t.Errorf("a run that ends ok: %d %+v", code, out)
	}
	// A field that is not there: 400 naming it, without the flow's source.
	var bad struct {
		Error map[string]any `json:"error"`
	}
	if code := ts.code("POST", "/hooks/wait", "", &bad); code != http.StatusBadRequest || bad.Error["code"] != "invalid_inputs" ||
		!strings.Contains(fmt.Sprint(bad.Error["message"]), `"x"`) || bad.Error["diagnostics"] != nil {
		t.Errorf("a missing query field: %d %v", code, bad)
	}
	rr = runReply{}
	// The answer, to a caller that has shown no signature, does not name
	// the flows; the log does.
	if code := ts.code("PUT", "/hooks/signed", "", &rr); code != http.StatusConflict || rr.Error.Code != "webhook_conflict" ||
		strings.Contains(rr.Error.Message, "other") || !strings.Contains(ts.logs.String(), "other/same") {
		t.Errorf("two flows at one path: %d %+v", code, rr)
	}
	if err := os.Remove(filepath.Join(ts.dir, "other.flow.hcl")); err != nil {
		t.Fatal(err)
	}
	ts.srv.flows.invalidate()
	if code := ts.code("POST", "/hooks/signed", "", nil); code != http.StatusMethodNotAllowed {
		t.Errorf("a wrong method: %d", code)
	}
	rr = runReply{}
	if code := ts.code("PUT", "/hooks/signed", "", &rr); code != http.StatusInternalServerError || !strings.Contains(ts.logs.String(), "FLOWCTL_SECRET_KEY") {
		t.Errorf("a secret not set: %d %+v", code, rr)
	}
}

const slowFlow = `flow "slow" {}

input "wait" {
  type    = string
  default = "0s"
}

step "pause" {
  use      = "sleep"
  duration = input.wait
}

output "waited" { value = input.wait }

trigger "slow" {
  webhook {
    path   = "/hooks/slow"
    verify = "none"
  }
  inputs  = { wait = lookup(request.query, "wait", "0s") }
  respond = "outputs"
  timeout = "1m"
}
`

// TestWebhookSlowBody: a caller that sends its body slower than
// webhookReadTimeout is answered 408 and holds no connection; a body that
// arrived in time leaves no deadline behind: respond = "outputs" waits
// past it for its run.
func TestWebhookSlowBody(t *testing.T) {
	defer func(d time.Duration) { webhookReadTimeout = d }(webhookReadTimeout)
	webhookReadTimeout = 200 * time.Millisecond
	ts := newTestServer(t, files{"slow.flow.hcl": slowFlow}, nil)
	conn, err := net.Dial("tcp", ts.http.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// The client gives up long after the server should have.
	conn.SetDeadline(time.Now().Add(20 * time.Second))
	fmt.Fprint(conn, "POST /hooks/slow HTTP/1.1\r\nHost: flowctl\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("a slow body is not answered: %v\n%s", err, ts.logs.String())
	}
	var e struct {
		Error struct{ Code string } `json:"error"`
	}
	json.NewDecoder(resp.Body).Decode(&e)
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestTimeout || e.Error.Code != "timeout" {
		t.Errorf("a slow body: %d %+v", resp.StatusCode, e)
	}
	if runs, err := ts.store.Runs("slow", 10); err != nil || len(runs) != 0 {
		t.Errorf("a slow body started runs: %v %v", runs, err)
	}
	webhookReadTimeout = time.Second
	var out struct {
		Status  string         `json:"status"`
		Outputs map[string]any `json:"outputs"`
	}
	if code := ts.code("POST", "/hooks/slow?wait=2s", "", &out); code != http.StatusOK || out.Status != "ok" || out.Outputs["waited"] != "2s" {
		t.Errorf("a run that outlasts the body's deadline: %d %+v", code, out)
	}
}

// TestWebhookPathsReserved: no webhook path can take one of serve's own
// routes (the API's, the dashboard's pages, the probes'), which a webhook
// would shadow: lang.ReservedPath holds every one of them.
func TestWebhookPathsReserved(t *testing.T) {
	ts := newTestServer(t, files{}, nil)
	patterns := append(append([]string{}, ts.srv.routes...), dashboardPages...)
	patterns = append(patterns, "GET /ui/", "GET /favicon.ico")
	for _, pattern := range patterns {
		_, p, _ := strings.Cut(pattern, " ")
		p = strings.ReplaceAll(p, "{$}", "")
		p = regexp.MustCompile(`\{[^}]*\}`).ReplaceAllString(p, "x")
		if !lang.ReservedPath(p) {
			t.Errorf("route %s: its path %s is not lang.ReservedPath: a webhook there would shadow it", pattern, p)
		}
	}
}

// githubFlow is docs/serve.md's example, answering with its inputs.
const githubFlow = `flow "push" {}

input "repo" { type = string }
input "branch" { type = string }

secret "github_hook" {}

output "where" { value = "${input.repo}@${input.branch}" }

trigger "github_push" {
  webhook {
    path        = "/hooks/github"
    verify      = "github"
    secret      = secret.github_hook
    body_schema = { ref = string, repository = { full_name = string } }
  }
  inputs  = {
    repo   = request.body.repository.full_name
    branch = trimprefix(request.body.ref, "refs/heads/")
  }
  when    = request.headers["x-github-event"] == "push"
  respond = output.where
}
`

// TestWebhookGitHubDeliveries: GitHub's deliveries as it sends them to
// the docs' example: its ping (which has no ref) is 204, not 400, so the
// webhook GitHub made is not shown failing; a push in GitHub's default
// form content type (payload=JSON) starts the run as a JSON one does; a
// push that does not fit body_schema is still 400.
func TestWebhookGitHubDeliveries(t *testing.T) {
	t.Setenv("FLOWCTL_SECRET_GITHUB_HOOK", "s3cret")
	ts := newTestServer(t, files{"push.flow.hcl": githubFlow}, nil)
	const push = `{"ref":"refs/heads/main","repository":{"id":1,"full_name":"octo/hello"},"commits":[]}`
	const ping = `{"zen":"Keep it logically awesome.","hook_id":1,"repository":{"full_name":"octo/hello"}}`
	deliver := func(event, contentType, body string) (int, string) {
		req, _ := http.NewRequest("POST", ts.url+"/hooks/github", strings.NewReader(body))
		req.Header.Set("Content-Type", contentType)
		req.Header.Set("X-GitHub-Event", event)
		req.Header.Set("X-GitHub-Delivery", fmt.Sprintf("%s-%s-%d", event, contentType, len(body)))
		req.Header.Set("X-Hub-Signature-256", "sha256="+hexHMACOf("s3cret", body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	form := func(payload string) string { return url.Values{"payload": {payload}}.Encode() }
	for _, c := range []struct {
		event, contentType, body string
		code                     int
		answer                   string
	}{
		{"ping", "application/json", ping, http.StatusNoContent, ""},
		{"ping", "application/x-www-form-urlencoded", form(ping), http.StatusNoContent, ""},
		{"push", "application/json", push, http.StatusOK, "octo/hello@main"},
		{"push", "application/x-www-form-urlencoded", form(push), http.StatusOK, "octo/hello@main"},
		{"push", "application/json", ping, http.StatusBadRequest, "body.ref: a string is required"},
	} {
		code, answer := deliver(c.event, c.contentType, c.body)
		if code != c.code || !strings.Contains(answer, c.answer) {
			t.Errorf("%s as %s: %d %s, want %d %s", c.event, c.contentType, code, answer, c.code, c.answer)
		}
	}
}

const standardFlow = `flow "std" {}

secret "hook" {}

trigger "std" {
  webhook {
    path   = "/hooks/std"
    verify = "standard"
    secret = secret.hook
  }
}
`

// TestWebhookStandardReplayWindow: a Standard Webhooks delivery again (a
// retry, re-signed, or a replay) is answered with its run by its
// webhook-id, kept for --idempotency-expiry; a signed timestamp within
// tolerance but older than half of that (when its id may have been
// forgotten by a replay) is refused, a recent one starts its run once.
func TestWebhookStandardReplayWindow(t *testing.T) {
	const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	t.Setenv("FLOWCTL_SECRET_HOOK", secret)
	ts := newTestServer(t, files{"std.flow.hcl": standardFlow}, func(o *Options) { o.IdempotencyExpiry = 2 * time.Minute })
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	deliver := func(id string, at time.Time, out any) int {
		sig, err := wh.Sign(id, at, []byte("{}"))
		if err != nil {
			t.Fatal(err)
		}
		return ts.code("POST", "/hooks/std", "{}", out, "webhook-id", id, "webhook-timestamp", fmt.Sprint(at.Unix()), "webhook-signature", sig)
	}
	if code := deliver("msg_old", time.Now().Add(-90*time.Second), nil); code != http.StatusUnauthorized {
		t.Errorf("a timestamp past half the ids' expiry: %d", code)
	}
	var first, again runReply
	if code := deliver("msg_new", time.Now().Add(-time.Second), &first); code != http.StatusAccepted {
		t.Errorf("a delivery: %d", code)
	}
	// The same message replayed (signed as the first was): 409.
	if code := deliver("msg_new", time.Now().Add(-time.Second), nil); code != http.StatusConflict {
		t.Errorf("its replay: %d, want 409", code)
	}
	// The sender's retry (re-signed later): 2xx, so that the sender
	// stops, with the run, and no other run.
	if code := deliver("msg_new", time.Now().Add(2*time.Second), &again); code != http.StatusOK || again.RunID != first.RunID {
		t.Errorf("its retry: %d %+v, want 200 with %s", code, again, first.RunID)
	}
	if runs, err := ts.store.Runs("std", 10); err != nil || len(runs) != 1 {
		t.Errorf("runs %d %v, want 1", len(runs), err)
	}
}

const stripeFlow = `flow "pay" {}

secret "stripe" {}

trigger "paid" {
  webhook {
    path   = "/hooks/stripe"
    verify = "stripe"
    secret = secret.stripe
  }
  when = request.body.type == "checkout.session.completed"
}
`

// TestWebhookStripeEventOnce: Stripe sends an event again, re-signed with
// a new timestamp, until it is answered 2xx, and a captured delivery can
// be replayed within the tolerance: the event's id starts one run, which
// the next delivery of it is answered with, and a timestamp is within
// half of the ids' expiry.
func TestWebhookStripeEventOnce(t *testing.T) {
	t.Setenv("FLOWCTL_SECRET_STRIPE", "whsec_test")
	ts := newTestServer(t, files{"pay.flow.hcl": stripeFlow}, func(o *Options) { o.IdempotencyExpiry = 4 * time.Minute })
	deliver := func(body string, at time.Time) (int, runReply) {
		stamp := fmt.Sprint(at.Unix())
		var rr runReply
		code := ts.code("POST", "/hooks/stripe", body, &rr, "Content-Type", "application/json; charset=utf-8",
			"Stripe-Signature", "t="+stamp+",v1="+hexHMACOf("whsec_test", stamp+"."+body))
		return code, rr
	}
	const event = `{"id":"evt_1","object":"event","type":"checkout.session.completed","data":{"object":{"id":"cs_1"}},"pending_webhooks":2}`
	code, first := deliver(event, time.Now().Add(-time.Minute))
	if code != http.StatusAccepted || first.RunID == "" {
		t.Fatalf("an event: %d %+v", code, first)
	}
	// Sent again, its pending_webhooks count may have changed.
	if code, again := deliver(strings.Replace(event, `"pending_webhooks":2`, `"pending_webhooks":1`, 1), time.Now()); code != http.StatusOK || again.RunID != first.RunID {
		t.Errorf("the event again: %d %+v, want 200 with run %s", code, again, first.RunID)
	}
	if code, other := deliver(strings.Replace(event, "evt_1", "evt_2", 1), time.Now()); code != http.StatusAccepted || other.RunID == first.RunID {
		t.Errorf("another event: %d %+v", code, other)
	}
	// Older than half the ids' expiry: its id may have been forgotten.
	if code, _ := deliver(strings.Replace(event, "evt_1", "evt_3", 1), time.Now().Add(-3*time.Minute)); code != http.StatusUnauthorized {
		t.Errorf("an event past half the ids' expiry: %d", code)
	}
	if runs, err := ts.store.Runs("pay", 10); err != nil || len(runs) != 2 {
		t.Errorf("runs %d %v, want 2", len(runs), err)
	}
}

// TestWebhookWaitPastRequestDeadline: respond = "outputs" waits for the
// trigger's timeout, not serve's deadline of a request (a minute, here
// 50ms): a run that ends after that deadline is answered with its
// outputs, not with an empty 200; a caller that went away is not.
func TestWebhookWaitPastRequestDeadline(t *testing.T) {
	ts := newTestServer(t, files{"slow.flow.hcl": slowFlow}, nil)
	id := ts.start("slow", `{"inputs": {"wait": "500ms"}}`)
	_, trig, _, _ := ts.srv.webhookFor("/hooks/slow", "POST")
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	rec := httptest.NewRecorder()
	ts.srv.respondWebhook(rec, httptest.NewRequest("POST", "/hooks/slow", nil).WithContext(ctx), trig, id, true)
	var out struct {
		Status  string         `json:"status"`
		Outputs map[string]any `json:"outputs"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil || rec.Code != http.StatusOK || out.Status != "ok" || out.Outputs["waited"] != "500ms" {
		t.Errorf("a run past the request's deadline: %d %q %v", rec.Code, rec.Body.String(), err)
	}
	// A caller that went away is not waited for.
	id = ts.start("slow", `{"inputs": {"wait": "3s"}}`)
	gone, leave := context.WithCancel(context.Background())
	leave()
	rec = httptest.NewRecorder()
	ts.srv.respondWebhook(rec, httptest.NewRequest("POST", "/hooks/slow", nil).WithContext(gone), trig, id, true)
	if rec.Body.Len() != 0 {
		t.Errorf("a caller that went away was answered: %q", rec.Body.String())
	}
}

// TestWebhookStandardBadSecret: a secret that is not a Standard Webhooks
// one is the server's mistake: 500, logged, not a 401 for the caller.
func TestWebhookStandardBadSecret(t *testing.T) {
	t.Setenv("FLOWCTL_SECRET_HOOK", "not base64!")
	ts := newTestServer(t, files{"std.flow.hcl": standardFlow}, nil)
	var rr runReply
	if code := ts.code("POST", "/hooks/std", "{}", &rr, "webhook-id", "msg_1", "webhook-timestamp", fmt.Sprint(time.Now().Unix()),
		"webhook-signature", "v1,Zm9v"); code != http.StatusInternalServerError || rr.Error.Code != "internal" ||
		!strings.Contains(ts.logs.String(), "not a Standard Webhooks secret") {
		t.Errorf("a secret that is not whsec_: %d %+v", code, rr)
	}
}

// TestWebhookMethodsOfOnePath: triggers at one path for different methods
// (n8n's Webhook nodes of one path, GET and POST) do not clash: each
// method starts its own trigger's run; another method is 405 naming both.
func TestWebhookMethodsOfOnePath(t *testing.T) {
	ts := newTestServer(t, files{"two.flow.hcl": `flow "two" {}

input "via" {
  type    = string
  default = ""
}

output "via" { value = input.via }

trigger "check" {
  webhook {
    path   = "/hooks/one"
    method = "GET"
    verify = "none"
  }
  inputs  = { via = "get ${request.query.x}" }
  respond = output.via
}

trigger "deliver" {
  webhook {
    path   = "/hooks/one"
    verify = "none"
  }
  inputs  = { via = "post" }
  respond = output.via
}
`}, nil)
	for _, c := range []struct{ method, path, want string }{{"GET", "/hooks/one?x=7", "get 7"}, {"POST", "/hooks/one", "post"}} {
		req, _ := http.NewRequest(c.method, ts.url+c.path, nil)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK || string(b) != c.want {
			t.Errorf("%s %s: %d %q, want 200 %q", c.method, c.path, res.StatusCode, b, c.want)
		}
	}
	res := ts.do("DELETE", "/hooks/one", "", nil)
	if res.StatusCode != http.StatusMethodNotAllowed || res.Header.Get("Allow") != "GET, POST" {
		t.Errorf("DELETE: %d, Allow %q", res.StatusCode, res.Header.Get("Allow"))
	}
}

// TestWebhookTextTypeOfAValue: a text content_type is for a string
// output; an output of another type is JSON, as its bytes are (n8n's
// Respond to Webhook answers text that is an object so).
func TestWebhookTextTypeOfAValue(t *testing.T) {
	ts := newTestServer(t, files{"typed.flow.hcl": `flow "typed" {}

input "obj" {
  type    = bool
  default = false
}

output "answer" { value = jsondecode(input.obj ? "{\"a\": 1}" : "\"hi\"") }

trigger "hook" {
  webhook {
    path   = "/hooks/typed"
    verify = "none"
  }
  inputs       = { obj = request.query.obj == "1" }
  respond      = output.answer
  content_type = "text/html; charset=utf-8"
}
`}, nil)
	for _, c := range []struct{ query, body, ctype string }{{"0", "hi", "text/html; charset=utf-8"}, {"1", `{"a":1}`, "application/json"}} {
		res, err := http.Post(ts.url+"/hooks/typed?obj="+c.query, "text/plain", nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK || strings.TrimSpace(string(b)) != c.body || res.Header.Get("Content-Type") != c.ctype {
			t.Errorf("obj=%s: %d %s %q, want %s %q", c.query, res.StatusCode, res.Header.Get("Content-Type"), b, c.ctype, c.body)
		}
	}
}
