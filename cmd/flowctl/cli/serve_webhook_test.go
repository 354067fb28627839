package cli

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

const (
	hookGitHubSecret   = "gh-s3cret"
	hookStripeSecret   = "whsec_stripe_s3cret"
	hookStandardSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
)

const hookFlow = `flow "hook" {}

secret "gh" {}
secret "stripe" {}
secret "std" {}
secret "sig" {}

input "repo" { type = string }

step "greet" {
  use   = "value"
  value = "hello ${input.repo}"
}

output "greeting" { value = step.greet.value }

trigger "github" {
  webhook {
    path        = "/hooks/github"
    verify      = "github"
    secret      = secret.gh
    body_schema = { repository = { full_name = string }, ref = string }
  }
  inputs = { repo = request.body.repository.full_name }
  when   = request.headers["x-github-event"] == "push"
}

trigger "stripe" {
  webhook {
    path      = "/hooks/stripe"
    verify    = "stripe"
    secret    = secret.stripe
    tolerance = "5m"
  }
  inputs = { repo = request.body.id }
}

trigger "standard" {
  webhook {
    path   = "/hooks/standard"
    verify = "standard"
    secret = secret.std
  }
  inputs = { repo = request.body.repo }
}

trigger "outputs" {
  webhook {
    path   = "/hooks/outputs"
    verify = "hmac"
    header = "X-Signature"
    secret = secret.sig
  }
  inputs  = { repo = request.query.repo }
  respond = "outputs"
}

trigger "text" {
  webhook {
    path     = "/hooks/text"
    verify   = "none"
    max_body = 64
  }
  inputs       = { repo = request.body.repo }
  respond      = output.greeting
  content_type = "text/plain"
}
`

// hookEnv are the webhooks' secrets, as serve reads them.
var hookEnv = []string{"FLOWCTL_SECRET_GH=" + hookGitHubSecret, "FLOWCTL_SECRET_STRIPE=" + hookStripeSecret,
	"FLOWCTL_SECRET_STD=" + hookStandardSecret, "FLOWCTL_SECRET_SIG=sig-s3cret"}

func hexHMAC(secret, msg string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(msg))
	return hex.EncodeToString(m.Sum(nil))
}

// post sends a webhook and returns its status and body.
func (p *serveProc) post(path, body string, headers ...string) (int, string, http.Header) {
	p.t.Helper()
	req, err := http.NewRequest("POST", p.url+path, strings.NewReader(body))
	if err != nil {
		p.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := p.client.Do(req)
	if err != nil {
		p.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

// runsOf counts the runs of a flow.
func (p *serveProc) runsOf(flow string) int {
	var list struct {
		Runs []struct{} `json:"runs"`
	}
	p.do("GET", "/v1/runs?limit=1000&flow="+flow, "", &list)
	return len(list.Runs)
}

// TestServeWebhooks: through flowctl serve, a GitHub-signed delivery
// starts one run (its redelivery none), a wrong signature is 401, a
// Stripe signature outside the tolerance 401, a Standard Webhooks
// delivery replayed 409, a body that does not fit 400 naming the field,
// respond = "outputs" answers the outputs and respond = output.NAME that
// output as the body; nothing of a refused request starts a run.
func TestServeWebhooks(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hook.flow.hcl"), []byte(hookFlow), 0o644); err != nil {
		t.Fatal(err)
	}
	// The webhooks need no token, the API its token.
	p := startServe(t, dir, append([]string{"FLOWCTL_TOKEN=t0k3n-0123456789abcdef"}, hookEnv...))
	push := `{"ref": "refs/heads/main", "repository": {"full_name": "octo/cat"}}`
	gh := func(body, sig, delivery string) (int, string) {
		code, out, _ := p.post("/hooks/github", body, "X-Hub-Signature-256", "sha256="+sig, "X-GitHub-Event", "push", "X-GitHub-Delivery", delivery)
		return code, out
	}
	code, out := gh(push, hexHMAC(hookGitHubSecret, push), "d-1")
	if code != http.StatusAccepted || !strings.Contains(out, `"run_id"`) {
		t.Fatalf("a signed delivery: %d %s", code, out)
	}
	// Its redelivery answers with the same run.
	if code2, out2 := gh(push, hexHMAC(hookGitHubSecret, push), "d-1"); code2 != http.StatusOK || runID(out2) != runID(out) {
		t.Errorf("a redelivery: %d %s, want 200 with %s", code2, out2, runID(out))
	}
	if code, out := gh(push, hexHMAC("wrong", push), "d-2"); code != http.StatusUnauthorized || !strings.Contains(out, "does not verify") {
		t.Errorf("a wrong signature: %d %s", code, out)
	}
	// Signed over another body than the one sent.
	if code, _ := gh(push+" ", hexHMAC(hookGitHubSecret, push), "d-3"); code != http.StatusUnauthorized {
		t.Errorf("a body other than the signed one: %d", code)
	}
	bad := `{"ref": "x", "repository": {"full_name": ["a"]}}`
	if code, out := gh(bad, hexHMAC(hookGitHubSecret, bad), "d-4"); code != http.StatusBadRequest || !strings.Contains(out, "body.repository.full_name: a string is required") {
		t.Errorf("a body that does not fit: %d %s", code, out)
	}
	// when is false: no run.
	if code, _, _ := p.post("/hooks/github", push, "X-Hub-Signature-256", "sha256="+hexHMAC(hookGitHubSecret, push), "X-GitHub-Event", "ping"); code != http.StatusNoContent {
		t.Errorf("a ping: %d, want 204", code)
	}

	stripe := func(ts time.Time) int {
		body := `{"id": "evt_1"}`
		t := fmt.Sprint(ts.Unix())
		code, _, _ := p.post("/hooks/stripe", body, "Stripe-Signature", "t="+t+",v1="+hexHMAC(hookStripeSecret, t+"."+body))
		return code
	}
	if code := stripe(time.Now().Add(-10 * time.Minute)); code != http.StatusUnauthorized {
		t.Errorf("a Stripe signature 10 minutes old: %d, want 401", code)
	}
	if code := stripe(time.Now()); code != http.StatusAccepted {
		t.Errorf("a Stripe signature of now: %d, want 202", code)
	}

	wh, err := standardwebhooks.NewWebhook(hookStandardSecret)
	if err != nil {
		t.Fatal(err)
	}
	signedAt := time.Now()
	std := func(id, body string) int {
		now := signedAt // the same message each time: a replay
		sig, err := wh.Sign(id, now, []byte(body))
		if err != nil {
			t.Fatal(err)
		}
		code, _, _ := p.post("/hooks/standard", body, "webhook-id", id, "webhook-timestamp", fmt.Sprint(now.Unix()), "webhook-signature", sig)
		return code
	}
	if code := std("msg_1", `{"repo": "a"}`); code != http.StatusAccepted {
		t.Errorf("a Standard Webhooks delivery: %d", code)
	}
	if code := std("msg_1", `{"repo": "a"}`); code != http.StatusConflict {
		t.Errorf("a Standard Webhooks delivery replayed: %d, want 409", code)
	}

	code, out, _ = p.post("/hooks/outputs?repo=ada", "", "X-Signature", hexHMAC("sig-s3cret", ""))
	if code != http.StatusOK || !strings.Contains(out, `"greeting": "hello ada"`) {
		t.Errorf("respond = outputs: %d %s", code, out)
	}
	code, out, h := p.post("/hooks/text", `{"repo": "bo"}`)
	if code != http.StatusOK || out != "hello bo" || h.Get("Content-Type") != "text/plain" {
		t.Errorf("respond = output.greeting: %d %q %s", code, out, h.Get("Content-Type"))
	}
	if code, _, _ := p.post("/hooks/text", `{"repo": "`+strings.Repeat("x", 100)+`"}`); code != http.StatusRequestEntityTooLarge {
		t.Errorf("a body over max_body: %d, want 413", code)
	}
	// github 1, stripe 1, standard 1, outputs 1, text 1.
	p.token = "t0k3n-0123456789abcdef"
	if n := p.runsOf("hook"); n != 5 {
		t.Errorf("%d runs, want 5", n)
	}
	log := p.stderr.String()
	if !strings.Contains(log, "webhook refused") || strings.Contains(log, "octo/cat") {
		t.Errorf("the refusals are logged, never with the body:\n%s", log)
	}
	if !strings.Contains(p.before, "webhook without verification") {
		t.Errorf("verify = \"none\" is not logged at start:\n%s", p.before)
	}
}

func runID(reply string) string {
	_, after, _ := strings.Cut(reply, `"run_id": "`)
	id, _, _ := strings.Cut(after, `"`)
	return id
}

const ingestFlow = `flow "ingest" {}

input "n" { type = number }

step "batch" {
  use   = "value"
  value = "b-${input.n}"
}

output "batch_id" { value = step.batch.value }
`

const afterIngestFlow = `flow "after" {}

input "batch" { type = string }

step "got" {
  use   = "value"
  value = input.batch
}

trigger "after_ingest" {
  on_run {
    flow   = "ingest"
    status = ["ok"]
  }
  inputs = { batch = run.outputs.batch_id }
}
`

// TestServeOnRunTwoServers: two servers on one PostgreSQL state, each
// serving an on_run trigger, start one run of it per finished run of the
// flow it follows, whichever server ran that.
func TestServeOnRunTwoServers(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	url := postgresURL(t)
	var procs []*serveProc
	for i := range 2 {
		dir := filepath.Join(t.TempDir(), fmt.Sprint(i))
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "ingest.flow.hcl"), []byte(ingestFlow), 0o644)
		os.WriteFile(filepath.Join(dir, "after.flow.hcl"), []byte(afterIngestFlow), 0o644)
		procs = append(procs, startServe(t, dir, []string{"FLOWCTL_STATE_URL=" + url}))
	}
	const n = 6
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			var rr runReply
			if code := procs[i%2].do("POST", "/v1/flows/ingest/runs", fmt.Sprintf(`{"inputs": {"n": %d}}`, i), &rr); code != http.StatusAccepted {
				t.Errorf("start %d: %d %+v", i, code, rr)
			}
		})
	}
	wg.Wait()
	type runRow struct {
		RunID  string `json:"run_id"`
		Status string `json:"status"`
	}
	deadline := time.Now().Add(time.Minute)
	for {
		var list struct {
			Runs []runRow `json:"runs"`
		}
		procs[0].do("GET", "/v1/runs?limit=1000&flow=after", "", &list)
		ok := 0
		for _, r := range list.Runs {
			if r.Status == "ok" {
				ok++
			}
		}
		if ok >= n {
			// A little longer: a second start of one would show now.
			time.Sleep(3 * 250 * time.Millisecond)
			procs[1].do("GET", "/v1/runs?limit=1000&flow=after", "", &list)
			batches := map[string]int{}
			for _, r := range list.Runs {
				var run struct {
					Inputs map[string]string `json:"inputs"`
				}
				procs[1].do("GET", "/v1/runs/"+r.RunID, "", &run)
				batches[run.Inputs["batch"]]++
			}
			if len(list.Runs) != n || len(batches) != n {
				t.Errorf("%d runs of after for %d ended runs of ingest, by batch: %v", len(list.Runs), n, batches)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("runs of after: %+v", list.Runs)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
