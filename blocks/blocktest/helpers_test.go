package blocktest

import (
	"context"
	"testing"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/lang"
	"github.com/zclconf/go-cty/cty"
)

// parseBlock decodes and checks the one block definition in src, as if it
// were the file test.block.hcl.
func parseBlock(t testing.TB, src string) *blocks.Block {
	t.Helper()
	f, diags := lang.NewParser().ParseSource([]byte(src), "test.block.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	defs, diags := lang.DecodeBlockFile(f)
	if diags.HasErrors() || len(defs) != 1 {
		t.Fatalf("decoding %d blocks: %v", len(defs), diags)
	}
	b, diags := blocks.FromDef(defs[0])
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return b
}

// fake returns executors that run every go, js and llm block with f.
func fake(f func(ctx context.Context, call *blocks.Call) (*blocks.Result, error)) *blocks.Executors {
	ex := blocks.ExecutorFunc(f)
	return &blocks.Executors{Runtimes: map[string]blocks.Executor{
		lang.RuntimeGo: ex, lang.RuntimeJS: ex, lang.RuntimeLLM: ex,
	}}
}

// returns is an executor that returns outputs.
func returns(outputs map[string]cty.Value) *blocks.Executors {
	return fake(func(context.Context, *blocks.Call) (*blocks.Result, error) {
		return &blocks.Result{Outputs: outputs}, nil
	})
}

// runOne runs a block that has exactly one example and returns its result.
func runOne(t testing.TB, b *blocks.Block, ex *blocks.Executors, opts Options) Result {
	t.Helper()
	rs := Run(context.Background(), b, ex, opts)
	if len(rs) != 1 {
		t.Fatalf("got %d results, want 1: %+v", len(rs), rs)
	}
	return rs[0]
}

// wantFailed checks that a result failed with the message msg.
func wantFailed(t testing.TB, r Result, msg string) {
	t.Helper()
	if r.Status != StatusFailed || r.Error != msg {
		t.Errorf("got %s with error %q, want failed with\n%q", r.Status, r.Error, msg)
	}
}

// wantPassed checks that a result passed.
func wantPassed(t testing.TB, r Result) {
	t.Helper()
	if r.Status != StatusPassed || r.Error != "" || r.Diff != "" {
		t.Errorf("got %s: error %q, diff:\n%s", r.Status, r.Error, r.Diff)
	}
}
