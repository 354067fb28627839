// Command serve measures flowctl serve: it starts a server on a loopback
// port, starts 200 runs of a small flow at once through the API, follows
// each run's event stream to its end, and prints the runs per second and
// the start latency (from the POST to the run's run_started event): p50,
// p99, max.
//
//	go run ./bench/serve [-runs 200]
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/flowctl/flowctl/bench/benchutil"
)

var runs = flag.Int("runs", 200, "runs started at once")

const flow = `flow "bench" {}

input "n" {
  type = number
}

step "double" {
  use   = "value"
  value = input.n * 2
}

step "text" {
  use   = "value"
  value = "n is ${step.double.value}"
}

output "text" {
  value = step.text.value
}
`

func main() {
	flag.Parse()
	dir, bin, done := benchutil.Start("serve")
	defer done()
	flows := filepath.Join(dir, "flows")
	benchutil.WriteFile(filepath.Join(flows, "bench.flow.hcl"), []byte(flow))
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", flows)
	stderr, err := cmd.StderrPipe()
	benchutil.Check(err)
	benchutil.Check(cmd.Start())
	defer cmd.Process.Kill()
	url := ""
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if m := regexp.MustCompile(`on (http://[^\s"]+)`).FindStringSubmatch(sc.Text()); m != nil {
			url = m[1]
			break
		}
	}
	if url == "" {
		benchutil.Check(fmt.Errorf("serve did not start"))
	}
	latencies := make([]time.Duration, *runs)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range *runs {
		wg.Go(func() {
			t0 := time.Now()
			resp, err := http.Post(url+"/v1/flows/bench/runs", "application/json", strings.NewReader(fmt.Sprintf(`{"inputs": {"n": %d}}`, i)))
			benchutil.Check(err)
			var r struct {
				RunID string `json:"run_id"`
			}
			benchutil.Check(json.NewDecoder(resp.Body).Decode(&r))
			resp.Body.Close()
			ev, err := http.Get(url + "/v1/runs/" + r.RunID + "/events")
			benchutil.Check(err)
			defer ev.Body.Close()
			lines := bufio.NewScanner(ev.Body)
			finished := false
			for lines.Scan() {
				switch lines.Text() {
				case "event: run_started":
					latencies[i] = time.Since(t0)
				case "event: run_finished":
					finished = true
				}
			}
			if !finished {
				benchutil.Check(fmt.Errorf("run %s: the stream ended without run_finished", r.RunID))
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	slices.Sort(latencies)
	pct := func(p float64) time.Duration { return latencies[min(len(latencies)-1, int(p*float64(len(latencies))))] }
	fmt.Printf("%d runs started at once: all finished in %.0f ms, %.0f runs/s; start latency p50 %.1f ms, p99 %.1f ms, max %.1f ms\n",
		*runs, float64(elapsed.Microseconds())/1000, float64(*runs)/elapsed.Seconds(),
		ms(pct(0.5)), ms(pct(0.99)), ms(latencies[len(latencies)-1]))
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
