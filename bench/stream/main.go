// Command stream measures how soon the text of a streaming llm step
// reaches its readers: from the moment a local model server has written
// (and flushed) the first chunk of its reply to the moment the first
// step_delta event is read from `flowctl apply --json`'s standard output,
// and from an event stream of `flowctl serve` (GET /v1/runs/{id}/events).
// The server holds the rest of the reply until that event has been read,
// so the time measured is the relay's alone. It prints p50, p99 and max
// of -n runs each.
//
//	go run ./bench/stream [-n 50]
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/flowctl/flowctl/bench/benchutil"
	"github.com/flowctl/flowctl/blocks/llm/llmtest"
)

var n = flag.Int("n", 50, "runs per measurement")

const flowSrc = `
flow "talk" {}

provider "local" {
  base_url = "%s"
}

step "say" {
  use      = "llm"
  provider = provider.local
  model    = "m"
  prompt   = "Say hello"
}

output "text" {
  value = step.say.text
}
`

// model is a streaming server: each request gets a first chunk once the
// reader is ready (start), and the rest once the reader has read it
// (released).
type model struct {
	start    chan struct{}
	first    chan time.Time // when a reply's first chunk was flushed
	released chan struct{}
}

func (m *model) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	st := llmtest.NewStream(w, "m")
	select {
	case <-m.start:
	case <-time.After(time.Minute):
	}
	st.Chunk("Hel")
	m.first <- time.Now()
	select {
	case <-m.released:
	case <-time.After(time.Minute):
	}
	st.Chunk("lo")
	st.End(llmtest.Usage{Prompt: 3, Completion: 2})
}

func main() {
	flag.Parse()
	dir, bin, done := benchutil.Start("stream")
	defer done()
	m := &model{start: make(chan struct{}, 1), first: make(chan time.Time, 1), released: make(chan struct{}, 1)}
	srv := httptest.NewServer(m)
	defer srv.Close()
	flows := filepath.Join(dir, "flows")
	benchutil.WriteFile(filepath.Join(flows, "talk.flow.hcl"), fmt.Appendf(nil, flowSrc, srv.URL+"/v1"))

	var apply []time.Duration
	for i := range *n {
		apply = append(apply, viaApply(bin, filepath.Join(flows, "talk.flow.hcl"), filepath.Join(dir, fmt.Sprintf("state-%d", i)), m))
	}
	report("apply --json", apply)

	s := startServe(bin, dir, flows)
	defer s.stop()
	var sse []time.Duration
	for range *n {
		sse = append(sse, viaSSE(s.url, m))
	}
	report("serve SSE", sse)
}

// viaApply runs apply --json and returns the time from the first chunk
// to the first step_delta line read.
func viaApply(bin, flow, state string, m *model) time.Duration {
	cmd := exec.Command(bin, "apply", "--auto-approve", "--json", "--state", state, flow)
	out, err := cmd.StdoutPipe()
	benchutil.Check(err)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	benchutil.Check(cmd.Start())
	m.start <- struct{}{}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var took time.Duration
	for sc.Scan() {
		if took == 0 && bytes.Contains(sc.Bytes(), []byte(`"type":"step_delta"`)) {
			read := time.Now()
			took = read.Sub(<-m.first)
			m.released <- struct{}{}
		}
	}
	if err := cmd.Wait(); err != nil || took == 0 {
		benchutil.Check(fmt.Errorf("apply: %v, no step_delta: %s", err, stderr.String()))
	}
	return took
}

type serve struct {
	cmd *exec.Cmd
	url string
}

func startServe(bin, dir, flows string) *serve {
	logPath := filepath.Join(dir, "serve.log")
	logf, err := os.Create(logPath)
	benchutil.Check(err)
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--state", filepath.Join(dir, "serve-state"), flows)
	cmd.Stdout, cmd.Stderr = logf, logf
	benchutil.Check(cmd.Start())
	addr := regexp.MustCompile(`on (http://[^\s"]+)`)
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		b, _ := os.ReadFile(logPath)
		if m := addr.FindSubmatch(b); m != nil {
			return &serve{cmd: cmd, url: string(m[1])}
		}
	}
	cmd.Process.Kill()
	b, _ := os.ReadFile(logPath)
	benchutil.Check(fmt.Errorf("serve did not start: %s", b))
	return nil
}

func (s *serve) stop() {
	s.cmd.Process.Signal(os.Interrupt)
	s.cmd.Wait()
}

// viaSSE starts a run and returns the time from the first chunk to the
// first step_delta event read from its event stream.
func viaSSE(base string, m *model) time.Duration {
	resp, err := http.Post(base+"/v1/flows/talk/runs", "application/json", strings.NewReader(`{"inputs":{}}`))
	benchutil.Check(err)
	var started struct {
		RunID string `json:"run_id"`
	}
	benchutil.Check(json.NewDecoder(resp.Body).Decode(&started))
	resp.Body.Close()
	ev, err := http.Get(base + "/v1/runs/" + started.RunID + "/events")
	benchutil.Check(err)
	defer ev.Body.Close()
	m.start <- struct{}{} // subscribed: the reply may come
	sc := bufio.NewScanner(ev.Body)
	var took time.Duration
	for sc.Scan() {
		line := sc.Text()
		if took == 0 && line == "event: step_delta" {
			took = time.Since(<-m.first)
			m.released <- struct{}{}
		}
		if line == "event: run_finished" {
			break
		}
	}
	if took == 0 {
		benchutil.Check(fmt.Errorf("run %s: no step_delta", started.RunID))
	}
	return took
}

func report(what string, ds []time.Duration) {
	slices.Sort(ds)
	p := func(q float64) time.Duration { return ds[min(len(ds)-1, int(q*float64(len(ds))))] }
	fmt.Printf("%-13s first chunk → first step_delta read: p50 %s, p99 %s, max %s (%d runs)\n",
		what, p(0.5).Round(10*time.Microsecond), p(0.99).Round(10*time.Microsecond), ds[len(ds)-1].Round(10*time.Microsecond), len(ds))
}
