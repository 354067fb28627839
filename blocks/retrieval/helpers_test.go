package retrieval

import (
	"testing"

	"github.com/flowctl/flowctl/blocks"
	"github.com/zclconf/go-cty/cty"
)

// builtinCall is a call of the built-in block name with its defaults and
// the given inputs, as the runtime makes it.
func builtinCall(t *testing.T, name string, set map[string]cty.Value) *blocks.Call {
	t.Helper()
	var b *blocks.Block
	for _, bb := range blocks.Builtins() {
		if bb.Name == name {
			b = bb
		}
	}
	if b == nil {
		t.Fatalf("no built-in %q", name)
	}
	in := map[string]cty.Value{}
	for _, f := range b.Inputs {
		if v, ok := set[f.Name]; ok {
			in[f.Name] = v
		} else if f.Default != cty.NilVal {
			in[f.Name] = f.Default
		} else {
			t.Fatalf("%s: input %q is required", name, f.Name)
		}
	}
	for k := range set {
		if b.Input(k) == nil {
			t.Fatalf("%s has no input %q", name, k)
		}
	}
	return &blocks.Call{Block: b, Inputs: in, Outputs: b.Outputs}
}
