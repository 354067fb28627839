// Command evals measures `flowctl eval` on 20,000 cases of a one-step flow
// (an llm step) against an instant local model server, in a separate
// process: the wall time and peak RSS of a first run, whose every case
// calls the model, and of a rerun, answered by the result cache.
//
//	go run ./bench/evals [-cases 20000]
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/flowctl/flowctl/bench/benchutil"
	"github.com/flowctl/flowctl/runtime/evaluate/evaltest"
)

var cases = flag.Int("cases", 20000, "rows of the dataset")

func main() {
	flag.Parse()
	dir, bin, done := benchutil.Start("evals")
	defer done()
	srv := evaltest.New()
	defer srv.Close()
	d := filepath.Join(dir, "triage")
	benchutil.WriteFile(filepath.Join(d, "triage.flow.hcl"), []byte(flow))
	benchutil.WriteFile(filepath.Join(d, "triage.eval.hcl"), []byte(eval))
	var rows strings.Builder
	labels := []string{"a refund, please", "the app crashed", "hello"}
	wants := []string{"billing", "bug", "other"}
	for i := range *cases {
		fmt.Fprintf(&rows, "{\"id\": \"c%d\", \"text\": \"ticket %d: %s\", \"category\": %q}\n", i, i, labels[i%3], wants[i%3])
	}
	benchutil.WriteFile(filepath.Join(d, "data.jsonl"), []byte(rows.String()))
	for _, what := range []string{"first run (every case calls the model)", "rerun (the result cache answers)"} {
		before := srv.Requests()
		cmd := exec.Command(bin, "eval", "--state", filepath.Join(dir, "state"), d)
		cmd.Env = append(os.Environ(), "OPENAI_BASE_URL="+srv.BaseURL(), "OPENAI_API_KEY=")
		start := time.Now()
		out, err := cmd.CombinedOutput()
		wall := time.Since(start)
		if err != nil || !strings.Contains(string(out), "held: category") {
			benchutil.Check(fmt.Errorf("flowctl eval: %v\n%s", err, out))
		}
		rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
		fmt.Printf("%d cases, %-40s %6.1f s wall, peak RSS %4.0f MB, %d model requests\n",
			*cases, what+":", wall.Seconds(), float64(rss)/1024, srv.Requests()-before)
	}
}

const flow = `flow "triage" {}

input "ticket" {
  type = string
}

step "classify" {
  use    = "llm"
  model  = "bench"
  prompt = "Ticket: ${input.ticket}"
}

output "category" {
  value = step.classify.text
}
`

const eval = `eval "triage" {
  flow    = "triage"
  dataset = "data.jsonl"
  inputs  = { ticket = row.text }

  score "category" {
    kind     = "exact"
    value    = output.category
    expected = row.category
  }

  gate {
    score = "category"
    min   = 0.99
  }
}
`
