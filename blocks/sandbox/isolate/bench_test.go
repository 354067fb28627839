package isolate

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/sandbox/gorun"
	"github.com/flowctl/flowctl/blocks/sandbox/jsrun"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime"
)

// benchCalls runs trivial calls of b one after another through a warm
// pool of one worker.
func benchCalls(b *testing.B, blk *blocks.Block) {
	p := newPool(b, Options{Size: 1})
	call := callOf(blk, 1)
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	if _, err := p.Execute(ctx, call); err != nil { // start the worker
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Execute(ctx, call); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPoolJS is a trivial js call through the warm pool (target:
// 150 µs).
func BenchmarkPoolJS(b *testing.B) {
	benchCalls(b, jsBlock(b, `function execute(input) { return { out: input.n + 1 } }`))
}

// BenchmarkPoolGo is a trivial go call through the warm pool (target:
// 150 µs).
func BenchmarkPoolGo(b *testing.B) {
	benchCalls(b, goBlock(b, ``, `return map[string]any{"out": input["n"].(float64) + 1}, nil`))
}

// BenchmarkSpawn starts a worker and waits until it has confined itself
// and said hello (target: 20 ms), with and without new namespaces.
func BenchmarkSpawn(b *testing.B) {
	for _, ns := range []bool{true, false} {
		name := "namespaces"
		if !ns {
			name = "no-namespaces"
		}
		b.Run(name, func(b *testing.B) {
			p := newPool(b, Options{})
			for b.Loop() {
				w, _, err := p.start(ns)
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				w.kill()
				<-w.waited
				b.StartTimer()
			}
		})
	}
}

// forEachFlow is a flow with a 2,000-item for_each over a js block.
const forEachFlow = `flow "fanout" {}

block "words" {
  runtime = "js"
  input "text" { type = string }
  input "n" { type = number }
  output "count" { type = number }
  output "first" { type = string }
  source = <<-JS
    function execute(input) {
      const w = input.text.split(" ")
      return { count: w.length + input.n, first: w[0].toUpperCase() }
    }
  JS
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
`

// BenchmarkForEach2000 applies the flow, no cache, with the js block in the
// worker pool or in process (targets: 5,000 and 10,000 calls/s on 2
// cores).
func BenchmarkForEach2000(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "fanout.flow.hcl")
	if err := os.WriteFile(path, []byte(forEachFlow), 0o644); err != nil {
		b.Fatal(err)
	}
	prog, diags := compiler.Compile(path, compiler.Options{})
	if diags.HasErrors() {
		b.Fatal(diags)
	}
	for _, mode := range []string{lang.SandboxIsolated, lang.SandboxInProcess} {
		b.Run(mode, func(b *testing.B) {
			var js blocks.Executor = jsrun.NewExecutor()
			if mode == lang.SandboxIsolated {
				js = newPool(b, Options{})
			}
			ex := &blocks.Executors{Builtins: blocks.BuiltinExecutors(), Runtimes: map[string]blocks.Executor{
				lang.RuntimeJS: js, lang.RuntimeGo: gorun.NewExecutor(),
			}}
			opts := runtime.Options{NoCache: true, Executors: ex}
			if res, err := runtime.Apply(context.Background(), prog, opts); err != nil || res.Status != runtime.StatusOK {
				b.Fatalf("warm-up: %v %v", err, res.Diagnostics)
			}
			start := time.Now()
			for b.Loop() {
				res, err := runtime.Apply(context.Background(), prog, opts)
				if err != nil || res.Status != runtime.StatusOK {
					b.Fatalf("%v %v", err, res.Diagnostics)
				}
			}
			b.ReportMetric(float64(2000*b.N)/time.Since(start).Seconds(), "calls/s")
		})
	}
}
