// Command calls measures what recording a run's model calls costs: a run
// of -n llm steps (a for_each) against a local model server that answers
// each request after -delay, applied with the calls recorded (the
// default) and without (record_prompts = false), each -repeat times from
// an empty state. It prints the median run time of each and the
// difference.
//
//	go run ./bench/calls [-n 1000] [-delay 1ms] [-repeat 5]
package main

import (
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/flowctl/flowctl/bench/benchutil"
	"github.com/flowctl/flowctl/blocks/llm/llmtest"
)

var (
	n      = flag.Int("n", 1000, "model calls per run")
	delay  = flag.Duration("delay", time.Millisecond, "how long the model takes to answer")
	repeat = flag.Int("repeat", 5, "runs of each setting")
)

const flowSrc = `
flow "many" {
  %s
}

provider "local" {
  base_url    = "%s/v1"
  concurrency = 16
  prices = {
    "m" = { input = 0.15, output = 0.6 }
  }
}

step "ask" {
  use      = "llm"
  provider = provider.local
  model    = "m"
  for_each = range(%d)
  prompt   = "Item ${each.value}: say something short about it."
}
`

func main() {
	flag.Parse()
	dir, bin, done := benchutil.Start("calls")
	defer done()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(*delay)
		llmtest.Reply(w, "m", strings.Repeat("words ", 40), llmtest.Usage{Prompt: 30, Completion: 40})
	}))
	defer srv.Close()
	times := map[bool][]time.Duration{}
	for i := range *repeat {
		for _, record := range []bool{true, false} {
			attr := ""
			if !record {
				attr = "record_prompts = false"
			}
			flows := filepath.Join(dir, fmt.Sprintf("run-%d-%v", i, record))
			benchutil.WriteFile(filepath.Join(flows, "many.flow.hcl"), fmt.Appendf(nil, flowSrc, attr, srv.URL, *n))
			cmd := exec.Command(bin, "apply", "--auto-approve", "--json", "--state", filepath.Join(flows, ".flowctl"), flows)
			events := benchutil.EventsTo(cmd, flows)
			start := time.Now()
			if err := cmd.Run(); err != nil {
				benchutil.Check(fmt.Errorf("apply: %v", err))
			}
			times[record] = append(times[record], time.Since(start))
			events()
		}
	}
	median := func(ds []time.Duration) time.Duration {
		slices.Sort(ds)
		return ds[len(ds)/2]
	}
	with, without := median(times[true]), median(times[false])
	fmt.Printf("%d llm calls of a %s model, median of %d runs: recorded %s, not recorded %s: recording costs %+.1f%%\n",
		*n, *delay, *repeat, with.Round(time.Millisecond), without.Round(time.Millisecond), 100*(float64(with)-float64(without))/float64(without))
}
