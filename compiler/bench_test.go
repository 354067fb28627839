package compiler_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/flowctl/flowctl/bench/flowgen"
	"github.com/flowctl/flowctl/compiler"
)

func benchmarkCompile(b *testing.B, chains, length int) {
	src := flowgen.Chains(chains, length)
	path := filepath.Join(b.TempDir(), "chains.flow.hcl")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		prog, diags := compiler.Compile(path, compiler.Options{})
		if diags.HasErrors() {
			b.Fatal(diags)
		}
		if len(prog.Steps) != chains*length || len(prog.Stages) != length {
			b.Fatalf("%d steps in %d stages", len(prog.Steps), len(prog.Stages))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(chains*length), "µs/step")
}

// BenchmarkCompile1k and BenchmarkCompile10k compile 10 chains × 100 steps
// and 100 chains × 100 steps: the cost per step should stay flat.
func BenchmarkCompile1k(b *testing.B)  { benchmarkCompile(b, 10, 100) }
func BenchmarkCompile10k(b *testing.B) { benchmarkCompile(b, 100, 100) }
