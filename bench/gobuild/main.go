// Command gobuild measures compiled go blocks (engine = "compiled") as a
// user runs them, and prints the figures:
//
//   - a compute-heavy block (recursive fibo(34) and a tally of 2,000,000
//     generated rows in a map): the step's own duration, against the same
//     code built as a plain Go program and timed in-process;
//
//   - a second apply of the unchanged block: the process's wall time
//     outside the step (no build);
//
//   - a first build with a warm Go build cache: the program is removed
//     from the cache, the Go build cache kept;
//
//   - a for_each of 2,000 trivial calls, compiled against interpreted in
//     the isolated sandbox: run time.
//
//     go run ./bench/gobuild [-runs 3]
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/flowctl/flowctl/bench/benchutil"
)

var runs = flag.Int("runs", 3, "runs per figure; the median is reported")

// work is the computation, as the body of a Go function returning
// (fib, distinct) from n.
const work = `
	var fib func(int) int
	fib = func(n int) int {
		if n < 2 {
			return n
		}
		return fib(n-1) + fib(n-2)
	}
	counts := map[string]int{}
	for i := 0; i < 2000000; i++ {
		counts["k"+strconv.Itoa(i%50000)]++
	}
	return fib(34), len(counts)
`

const heavyFlow = `flow "heavy" {}

block "compute" {
  runtime = "go"
  engine  = "compiled"
  output "fib" { type = number }
  output "keys" { type = number }
  timeout = "10m"
  source = <<-GO
    package block

    import (
      "context"
      "strconv"
    )

    func compute() (int, int) {` + work + `}

    func Execute(ctx context.Context, input map[string]any) (map[string]any, error) {
      f, k := compute()
      return map[string]any{"fib": f, "keys": k}, nil
    }
  GO
}

step "c" {
  use = "compute"
}
`

const plainProgram = `package main

import (
	"fmt"
	"strconv"
	"time"
)

func compute() (int, int) {` + work + `}

func main() {
	start := time.Now()
	f, k := compute()
	fmt.Println(time.Since(start).Microseconds(), f, k)
}
`

func fanOutFlow(engine string) string {
	return `flow "fanout" {}

block "words" {
  runtime = "go"
  engine  = "` + engine + `"
  input "text" { type = string }
  input "n" { type = number }
  output "count" { type = number }
  source = <<-GO
    package block

    import (
      "context"
      "strings"
    )

    func Execute(ctx context.Context, input map[string]any) (map[string]any, error) {
      w := strings.Split(input["text"].(string), " ")
      return map[string]any{"count": float64(len(w)) + input["n"].(float64)}, nil
    }
  GO
}

step "each" {
  use      = "words"
  for_each = concat(range(1000), range(1000, 2000))
  text     = "the quick brown fox jumps over the lazy dog"
  n        = each.value
}
`
}

func main() {
	flag.Parse()
	dir, bin, done := benchutil.Start("gobuild")
	defer done()
	cache := filepath.Join(dir, "cache")
	env := append(os.Environ(), "FLOWCTL_GO_CACHE="+cache)

	// The plain program, built and run the same way.
	plain := filepath.Join(dir, "plain")
	benchutil.WriteFile(filepath.Join(plain, "main.go"), []byte(plainProgram))
	benchutil.WriteFile(filepath.Join(plain, "go.mod"), []byte("module plain\n"))
	build := exec.Command("go", "build", "-trimpath", "-o", "plain", ".")
	build.Dir, build.Env = plain, append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		benchutil.Check(fmt.Errorf("%v: %s", err, out))
	}

	heavy := filepath.Join(dir, "heavy")
	benchutil.WriteFile(filepath.Join(heavy, "heavy.flow.hcl"), []byte(heavyFlow))
	start := time.Now()
	apply(bin, env, heavy) // the first build, with a cold Go build cache
	cold := time.Since(start)

	var steps, plains, outside []time.Duration
	for range *runs {
		start := time.Now()
		step := apply(bin, env, heavy)
		wall := time.Since(start)
		steps, outside = append(steps, step), append(outside, wall-step)
		out, err := exec.Command(filepath.Join(plain, "plain")).Output()
		benchutil.Check(err)
		var us int64
		fmt.Sscan(string(out), &us)
		plains = append(plains, time.Duration(us)*time.Microsecond)
	}
	s, p := benchutil.Median(steps), benchutil.Median(plains)
	fmt.Printf("fibo(34) + 2M-row tally:      step %8.1f ms, plain Go %8.1f ms, %.2f× the plain program\n", ms(s), ms(p), float64(s)/float64(p))
	fmt.Printf("second apply, unchanged block: %8.1f ms outside the step (no build)\n", ms(benchutil.Median(outside)))

	var warm []time.Duration
	for range *runs {
		progs, _ := filepath.Glob(filepath.Join(cache, "*", "program"))
		for _, p := range progs {
			benchutil.Check(os.RemoveAll(filepath.Dir(p)))
		}
		start := time.Now()
		step := apply(bin, env, heavy)
		warm = append(warm, time.Since(start)-step)
	}
	fmt.Printf("first build, warm Go cache:    %8.1f ms outside the step (first ever, cold cache: %.1f s)\n", ms(benchutil.Median(warm)), cold.Seconds())

	for _, engine := range []string{"interpreted", "compiled"} {
		d := filepath.Join(dir, "fanout-"+engine)
		benchutil.WriteFile(filepath.Join(d, "fanout.flow.hcl"), []byte(fanOutFlow(engine)))
		applyJSON(bin, env, d) // build, warm the state
		var times []time.Duration
		for range *runs {
			times = append(times, benchutil.RunTime(applyJSON(bin, env, d)))
		}
		t := benchutil.Median(times)
		fmt.Printf("for_each 2,000 calls, %-11s %8.1f ms run time, %.0f calls/s\n", engine+":", ms(t), 2000/t.Seconds())
	}
}

// apply applies the flow in dir with --no-cache and returns the duration
// of its step.
func apply(bin string, env []string, dir string) time.Duration {
	out := applyJSON(bin, env, dir)
	for _, line := range bytes.Split(out, []byte("\n")) {
		var ev struct {
			Type       string `json:"type"`
			DurationMS int64  `json:"duration_ms"`
			Status     string `json:"status"`
		}
		if json.Unmarshal(line, &ev) == nil && ev.Type == "step_finished" {
			if ev.Status != "ok" {
				benchutil.Check(fmt.Errorf("the step %s: %s", ev.Status, line))
			}
			return time.Duration(ev.DurationMS) * time.Millisecond
		}
	}
	benchutil.Check(fmt.Errorf("no step_finished event in %s", strings.TrimSpace(string(out))))
	return 0
}

func applyJSON(bin string, env []string, dir string) []byte {
	cmd := exec.Command(bin, "apply", "--auto-approve", "--json", "--no-cache", dir)
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, os.Stderr
	if err := cmd.Run(); err != nil {
		benchutil.Check(fmt.Errorf("apply %s: %v: %s", dir, err, lastLine(out.Bytes())))
	}
	return out.Bytes()
}

func lastLine(b []byte) []byte {
	b = bytes.TrimSpace(b)
	return b[bytes.LastIndexByte(b, '\n')+1:]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
