// Command flowtest measures `flowctl test` on 100 tests of a 10-step flow
// whose http and llm steps are mocked, in a separate process, and prints
// the median wall time of the runs.
//
//	go run ./bench/flowtest [-runs 5]
package main

import (
	"flag"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/flowctl/flowctl/bench/benchutil"
)

var runs = flag.Int("runs", 5, "runs; the median is reported")

func main() {
	flag.Parse()
	dir, bin, done := benchutil.Start("flowtest")
	defer done()
	d := filepath.Join(dir, "ten")
	benchutil.WriteFile(filepath.Join(d, "ten.flow.hcl"), []byte(flow()))
	benchutil.WriteFile(filepath.Join(d, "ten.test.hcl"), []byte(tests(100)))
	var walls []time.Duration
	for range *runs {
		cmd := exec.Command(bin, "test", d)
		start := time.Now()
		out, err := cmd.CombinedOutput()
		walls = append(walls, time.Since(start))
		if err != nil || !strings.Contains(string(out), "100 passed, 0 failed") {
			benchutil.Check(fmt.Errorf("flowctl test: %v\n%s", err, out))
		}
	}
	fmt.Printf("100 tests of a 10-step mocked flow: %6.0f ms (median of %d runs, whole process)\n",
		float64(benchutil.Median(walls).Microseconds())/1000, *runs)
}

// flow is an http step, 8 value steps in a chain, and an llm step.
func flow() string {
	var b strings.Builder
	b.WriteString("flow \"ten\" {}\n\nstep \"fetch\" {\n  use = \"http\"\n  url = \"https://example.com\"\n}\n")
	prev := "step.fetch.body"
	for i := 1; i <= 8; i++ {
		fmt.Fprintf(&b, "\nstep \"s%d\" {\n  use   = \"value\"\n  value = \"${%s}-%d\"\n}\n", i, prev, i)
		prev = fmt.Sprintf("step.s%d.value", i)
	}
	fmt.Fprintf(&b, "\nstep \"note\" {\n  use    = \"llm\"\n  prompt = %s\n}\n\noutput \"note\" {\n  value = step.note.text\n}\n", prev)
	return b.String()
}

// tests are n tests of the flow, each with its own body.
func tests(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `test "t%d" {
  override "step.fetch" {
    outputs = { body = "b%d" }
  }
  mock "llm" {
    outputs = { text = upper(args.prompt) }
  }
  assert {
    condition     = output.note == "B%d-1-2-3-4-5-6-7-8"
    error_message = "the note is the model's"
  }
}

`, i, i, i)
	}
	return b.String()
}
