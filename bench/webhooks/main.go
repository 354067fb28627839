// Command webhooks measures what a webhook trigger costs flowctl serve:
// deliveries answered per second into a one-step flow through a webhook
// with GitHub verification (X-Hub-Signature-256 over the body, a distinct
// X-GitHub-Delivery each, kept as the run's idempotency key), against
// starts of the same flow through POST /v1/flows/NAME/runs without one,
// and with an Idempotency-Key (what the delivery id costs).
// Each measurement starts a server on a loopback port with an empty SQLite
// state and sends -n requests from -clients clients; a request counts when
// it is answered 202 (its run recorded, queued or started). Each figure is
// the median of -repeat measurements.
//
//	go run ./bench/webhooks [-n 3000] [-clients 32] [-repeat 3]
package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/flowctl/flowctl/bench/benchutil"
)

var (
	n       = flag.Int("n", 3000, "requests per measurement")
	clients = flag.Int("clients", 32, "clients, each with one request under way at a time")
	repeat  = flag.Int("repeat", 3, "measurements per setting; the median is reported")
)

const secret = "bench-s3cret"

const flow = `flow "bench" {}

secret "hook" {}

input "repo" { type = string }

step "greet" {
  use   = "value"
  value = "push to ${input.repo}"
}

output "greeting" { value = step.greet.value }

trigger "push" {
  webhook {
    path        = "/hooks/github"
    verify      = "github"
    secret      = secret.hook
    body_schema = { ref = string, repository = { full_name = string } }
  }
  inputs = { repo = request.body.repository.full_name }
  when   = request.headers["x-github-event"] == "push"
}
`

// A request is what a client sends for request i.
type request func(base string, i int) *http.Request

func webhook(base string, i int) *http.Request {
	body := fmt.Sprintf(`{"ref": "refs/heads/main", "repository": {"full_name": "octo/repo-%d"}}`, i)
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(body))
	req, err := http.NewRequest("POST", base+"/hooks/github", strings.NewReader(body))
	benchutil.Check(err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", "push")
	req.Header.Set("X-GitHub-Delivery", fmt.Sprintf("delivery-%d", i))
	req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(m.Sum(nil)))
	return req
}

func api(base string, i int) *http.Request {
	req, err := http.NewRequest("POST", base+"/v1/flows/bench/runs", strings.NewReader(fmt.Sprintf(`{"inputs": {"repo": "octo/repo-%d"}}`, i)))
	benchutil.Check(err)
	req.Header.Set("Content-Type", "application/json")
	return req
}

// apiKeyed is api with an Idempotency-Key, the key a webhook's delivery
// id is.
func apiKeyed(base string, i int) *http.Request {
	req := api(base, i)
	req.Header.Set("Idempotency-Key", fmt.Sprintf("delivery-%d", i))
	return req
}

func main() {
	flag.Parse()
	dir, bin, done := benchutil.Start("webhooks")
	defer done()
	flows := filepath.Join(dir, "flows")
	benchutil.WriteFile(filepath.Join(flows, "bench.flow.hcl"), []byte(flow))
	fmt.Printf("%d starts of a one-step flow, %d clients, SQLite state, median of %d\n", *n, *clients, *repeat)
	for _, s := range []struct {
		label string
		req   request
	}{
		{"webhook, GitHub-verified", webhook},
		{"POST /v1/flows/bench/runs", api},
		{"the same, Idempotency-Key", apiKeyed},
	} {
		var rates []float64
		for i := range *repeat {
			rate := measure(bin, dir, flows, filepath.Join(dir, fmt.Sprintf("state-%d-%d", len(s.label), i)), s.req)
			fmt.Printf("  %-28s %7.0f starts/s\n", s.label, rate)
			rates = append(rates, rate)
		}
		slices.Sort(rates)
		fmt.Printf("%-30s %7.0f starts/s (median; %.0f–%.0f)\n", s.label, rates[len(rates)/2], rates[0], rates[len(rates)-1])
	}
}

// measure starts a server on state, sends it *n requests and returns the
// requests answered per second.
func measure(bin, dir, flows, state string, req request) float64 {
	logPath := filepath.Join(dir, "serve.log")
	logf, err := os.Create(logPath)
	benchutil.Check(err)
	defer logf.Close()
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--state", state, "--max-queue", "1000000", flows)
	cmd.Env = append(os.Environ(), "FLOWCTL_SECRET_HOOK="+secret)
	cmd.Stdout, cmd.Stderr = logf, logf
	benchutil.Check(cmd.Start())
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	base := ""
	addr := regexp.MustCompile(`on (http://[^\s"]+)`)
	for deadline := time.Now().Add(time.Minute); base == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		b, _ := os.ReadFile(logPath)
		if m := addr.FindSubmatch(b); m != nil {
			base = string(m[1])
		}
	}
	if base == "" {
		benchutil.Check(fmt.Errorf("serve did not start"))
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2 * *clients, DisableCompression: true}}
	defer client.CloseIdleConnections()
	send := func(i int) error {
		resp, err := client.Do(req(base, i))
		if err != nil {
			return err
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted {
			return fmt.Errorf("request %d: %d %s", i, resp.StatusCode, b)
		}
		return nil
	}
	// A warm-up, not counted: the flow compiled, the connections open.
	for i := range *clients {
		benchutil.Check(send(*n + i))
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var next atomic.Int64
	var wg sync.WaitGroup
	var firstErr error
	var once sync.Once
	start := time.Now()
	for range *clients {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := next.Add(1) - 1
				if i >= int64(*n) {
					return
				}
				if err := send(int(i)); err != nil {
					once.Do(func() { firstErr = err; cancel() })
					return
				}
			}
		})
	}
	wg.Wait()
	benchutil.Check(firstErr)
	return float64(*n) / time.Since(start).Seconds()
}
