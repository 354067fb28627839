package gorun

import (
	"context"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// BenchmarkTrivialCall measures a call of a cached go block that returns
// its input: taking the idle interpreter, converting the input, running
// Execute through the serve loop, and converting the output back.
//
//	go test -run '^$' -bench TrivialCall -benchtime 20000x ./blocks/sandbox/gorun
func BenchmarkTrivialCall(b *testing.B) {
	def := parseDef(b, code(nil, `return map[string]any{"y": input["x"]}, nil`))
	e := NewExecutor()
	defer e.Close()
	call := newCall(b, def, cty.StringVal("hello"))
	ctx := context.Background()
	if _, err := e.Execute(ctx, call); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := e.Execute(ctx, call); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if n := e.compiles.Load(); n != 1 {
		b.Fatalf("compiles = %d", n)
	}
}

// BenchmarkLoop measures a loop of a million additions, for the cost of
// interpreted code.
func BenchmarkLoop(b *testing.B) {
	def := parseDef(b, code(nil, `n := 0
	for i := 0; i < 1000000; i++ {
		n += i
	}
	return map[string]any{"y": n}, nil`))
	e := NewExecutor()
	defer e.Close()
	call := newCall(b, def, cty.NilVal)
	ctx := context.Background()
	for b.Loop() {
		if _, err := e.Execute(ctx, call); err != nil {
			b.Fatal(err)
		}
	}
}
