// Command python measures python blocks against the targets of issue 40,
// each beside plain python3 (the same interpreter) measured in the same
// run, since the ratio says more than the time on a busy machine:
//
//   - discovery: what a flowctl process pays once before its first python
//     call (finding the interpreter, and the files its workers may read);
//
//   - start-up: a first call on a new pool (the interpreter and the
//     runner started, the worker confined, one trivial call), beside
//     `python3 -I -S -c pass`; target 60 ms; and beside a js block's first
//     call (the flowctl binary started as a sandbox worker);
//
//   - compute: recursive fib(27) in a python block on a new pool (worker
//     start included), beside `python3 -I -S -c` of the same code (its
//     start included); target: at most 1.3× plain python3;
//
//   - a for_each of 2,000 trivial python calls, applied with the block in
//     the isolated pool as apply runs it, with a new pool (worker start
//     included) and a warm one; target 5,000 calls/s.
//
// Each ratio is the median of the ratios of rounds that measure plain
// python3 and then the block, one after the other. The program is its own
// sandbox worker (for the js block), as flowctl is.
//
//	go run ./bench/python [-runs 5]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/flowctl/flowctl/bench/benchutil"
	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/sandbox/isolate"
	"github.com/flowctl/flowctl/blocks/sandbox/pyrun"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime"
	"github.com/zclconf/go-cty/cty"
)

var runs = flag.Int("runs", 5, "runs per figure; the median is reported")

const fibCode = `def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
`

func main() {
	if len(os.Args) > 1 && os.Args[1] == isolate.WorkerArg {
		os.Exit(isolate.Main(os.Args[2:]))
	}
	flag.Parse()

	start := time.Now()
	interp, err := pyrun.Find()
	benchutil.Check(err)
	found := time.Since(start)
	start = time.Now()
	_, err = interp.Worker()
	benchutil.Check(err)
	fmt.Printf("python %s (%s)\n", interp.VersionString(), interp.Path)
	fmt.Printf("discovery, once a process: find %.1f ms, the files a worker reads %.1f ms\n", ms(found), ms(time.Since(start)))

	trivial, fib := pyBlock("return {\"out\": input[\"n\"] + 1}", ""), pyBlock("return {\"out\": fib(27)}", fibCode)
	plainStart, first, ratio := paired(func() time.Duration { return plain(interp.Path, "pass") }, func() time.Duration { return firstCall(trivial) })
	js := median(func() time.Duration { return firstCall(jsBlock) })
	fmt.Printf("start-up, first call on a new pool:    %6.1f ms  (python3 -I -S -c pass: %.1f ms; %.2f×; target 60 ms)\n",
		ms(first), ms(plainStart), ratio)
	fmt.Printf("  beside: a js block's first call:     %6.1f ms  (the flowctl sandbox worker, which a python worker no longer starts through)\n", ms(js))

	plainFib, blockFib, ratio := paired(func() time.Duration { return plain(interp.Path, fibCode+"fib(27)") }, func() time.Duration { return firstCall(fib) })
	fmt.Printf("fib(27), worker start included:        %6.1f ms  (plain python3: %.1f ms; %.2f×; target ≤ 1.3×)\n",
		ms(blockFib), ms(plainFib), ratio)

	prog := forEachProgram()
	cold := median(func() time.Duration { return applyOnce(prog, nil) })
	pool := isolate.New(isolate.Options{})
	applyOnce(prog, pool)
	warm := median(func() time.Duration { return applyOnce(prog, pool) })
	pool.Close()
	fmt.Printf("for_each of 2,000 python calls, new pool:  %6.0f calls/s (%.0f ms)\n", 2000/cold.Seconds(), ms(cold))
	fmt.Printf("for_each of 2,000 python calls, warm pool: %6.0f calls/s (%.0f ms; target 5,000 calls/s)\n", 2000/warm.Seconds(), ms(warm))
}

// plain is the wall time of python3 -I -S -c code.
func plain(python, code string) time.Duration {
	cmd := exec.Command(python, "-I", "-S", "-c", code)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	start := time.Now()
	benchutil.Check(cmd.Run())
	return time.Since(start)
}

// pyBlock is a python block with input n and output out, execute's body
// given after the code before it.
func pyBlock(body, before string) *blocks.Block {
	src := `block "p" {
  runtime = "python"
  input "n" { type = number }
  output "out" { type = any }
  source = <<-PY
` + before + `def execute(input, ctx):
    ` + body + `
  PY
}
`
	bs, diags := blocks.ParseBlocks([]byte(src), "bench.hcl")
	if diags.HasErrors() {
		benchutil.Check(diags)
	}
	return bs[0]
}

// jsBlock is a trivial js block, whose first call is the sandbox
// worker's start-up and little else.
var jsBlock = func() *blocks.Block {
	bs, diags := blocks.ParseBlocks([]byte(`block "j" {
  runtime = "js"
  input "n" { type = number }
  output "out" { type = any }
  source = "function execute(input) { return { out: input.n + 1 } }"
}
`), "bench.hcl")
	if diags.HasErrors() {
		benchutil.Check(diags)
	}
	return bs[0]
}()

// firstCall is the time of one call of b on a new pool: the worker's
// start and the call.
func firstCall(b *blocks.Block) time.Duration {
	pool := isolate.New(isolate.Options{Size: 1})
	defer pool.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	call := &blocks.Call{Block: b, Inputs: map[string]cty.Value{"n": cty.NumberIntVal(1)}, Outputs: b.Outputs, Step: "s"}
	start := time.Now()
	_, err := pool.Execute(ctx, call)
	benchutil.Check(err)
	return time.Since(start)
}

// forEachProgram is a flow of a for_each of 2,000 trivial python calls.
func forEachProgram() *compiler.Program {
	dir, err := os.MkdirTemp("", "flowctl-bench-python-")
	benchutil.Check(err)
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "fanout.flow.hcl")
	benchutil.Check(os.WriteFile(path, []byte(`flow "fanout" {}

block "words" {
  runtime = "python"
  input "text" { type = string }
  input "n" { type = number }
  output "count" { type = number }
  output "first" { type = string }
  source = <<-PY
    def execute(input, ctx):
        w = input["text"].split(" ")
        return {"count": len(w) + input["n"], "first": w[0].upper()}
  PY
}

step "each" {
  use      = "words"
  for_each = concat(range(1000), range(1000, 2000))
  text     = "the quick brown fox jumps over the lazy dog"
  n        = each.value
}

output "total" {
  value = sum(step.each[*].count)
}
`), 0o644))
	prog, diags := compiler.Compile(path, compiler.Options{})
	if diags.HasErrors() {
		benchutil.Check(diags)
	}
	return prog
}

// applyOnce applies prog without its cache, its python block in pool (a
// new one when nil), and returns the time Apply took.
func applyOnce(prog *compiler.Program, pool *isolate.Pool) time.Duration {
	if pool == nil {
		pool = isolate.New(isolate.Options{})
		defer pool.Close()
	}
	exs := &blocks.Executors{Builtins: blocks.BuiltinExecutors(), Runtimes: map[string]blocks.Executor{
		lang.RuntimePython: isolate.Route(pool, nil, isolate.RouteOptions{}),
	}}
	start := time.Now()
	res, err := runtime.Apply(context.Background(), prog, runtime.Options{NoCache: true, Executors: exs})
	d := time.Since(start)
	benchutil.Check(err)
	if res.Status != runtime.StatusOK {
		benchutil.Check(fmt.Errorf("the for_each failed: %v", res.Diagnostics))
	}
	return d
}

// paired runs a and then b, *runs times, and returns the median of each
// and the median of b's time over a's in the same round: on a busy machine
// the load moves between rounds, and a ratio of two medians taken apart
// would move with it.
func paired(a, b func() time.Duration) (ma, mb time.Duration, ratio float64) {
	var va, vb []time.Duration
	var r []float64
	for range *runs {
		x, y := a(), b()
		va, vb, r = append(va, x), append(vb, y), append(r, float64(y)/float64(x))
	}
	slices.Sort(r)
	return benchutil.Median(va), benchutil.Median(vb), r[len(r)/2]
}

// median runs f *runs times and returns the median.
func median(f func() time.Duration) time.Duration {
	var v []time.Duration
	for range *runs {
		v = append(v, f())
	}
	return benchutil.Median(v)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
