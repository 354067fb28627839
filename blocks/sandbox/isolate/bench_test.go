package isolate

import (
	"context"
	"os"
	"path/filepath"
	goruntime "runtime"
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
	benchCalls(b, plusOneJS(b))
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
				w, _, err := p.start(ns, "")
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

// forEachFlow is a flow with a 2,000-item for_each over a trivial block
// of the runtime given (js or go).
func forEachFlow(rt string) string {
	src := `  source = <<-JS
    function execute(input) {
      const w = input.text.split(" ")
      return { count: w.length + input.n, first: w[0].toUpperCase() }
    }
  JS`
	if rt == lang.RuntimeGo {
		src = `  source = <<-GO
    package block

    import (
      "context"
      "strings"
    )

    func Execute(ctx context.Context, input map[string]any) (map[string]any, error) {
      w := strings.Split(input["text"].(string), " ")
      return map[string]any{"count": float64(len(w)) + input["n"].(float64), "first": strings.ToUpper(w[0])}, nil
    }
  GO`
	}
	return `flow "fanout" {}

block "words" {
  runtime = "` + rt + `"
  input "text" { type = string }
  input "n" { type = number }
  output "count" { type = number }
  output "first" { type = string }
` + src + `
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
}

// BenchmarkForEach2000 applies the flow, no cache, with the block in the
// worker pool or in process, as apply runs them (targets on 2 cores:
// 10,000 calls/s isolated, 30,000 in process, for js and go).
func BenchmarkForEach2000(b *testing.B) {
	for _, rt := range []string{lang.RuntimeJS, lang.RuntimeGo} {
		dir := b.TempDir()
		path := filepath.Join(dir, "fanout.flow.hcl")
		if err := os.WriteFile(path, []byte(forEachFlow(rt)), 0o644); err != nil {
			b.Fatal(err)
		}
		prog, diags := compiler.Compile(path, compiler.Options{})
		if diags.HasErrors() {
			b.Fatal(diags)
		}
		for _, mode := range []string{lang.SandboxIsolated, lang.SandboxInProcess} {
			b.Run(rt+"/"+mode, func(b *testing.B) {
				var ex blocks.Executor = blocks.Limit(jsrun.NewExecutor(), goruntime.GOMAXPROCS(0))
				if rt == lang.RuntimeGo {
					ex = blocks.Limit(gorun.NewExecutor(), goruntime.GOMAXPROCS(0))
				}
				if mode == lang.SandboxIsolated {
					ex = Route(newPool(b, Options{}), ex, RouteOptions{})
				}
				exs := &blocks.Executors{Builtins: blocks.BuiltinExecutors(), Runtimes: map[string]blocks.Executor{rt: ex}}
				opts := runtime.Options{NoCache: true, Executors: exs}
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
}
