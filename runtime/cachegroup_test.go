package runtime

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/bench/flowgen"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/zclconf/go-cty/cty"
)

// TestForEachCacheGroup runs a for_each step of more than cacheGroupMin
// instances, which reads its block's cache group before looking its
// instances up: the first run finds nothing, the second every instance,
// and a run with one item changed all but that one. (A value step is
// not cached by default; this one asks to be.)
func TestForEachCacheGroup(t *testing.T) {
	src := strings.Replace(string(flowgen.ForEach(false)), `use      = "value"`, "use      = \"value\"\n  cache    = true", 1)
	prog := compileBench(t, []byte(src))
	st, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const n = 3 * cacheGroupMin
	apply := func(changed int) map[Status]int {
		items := make([]cty.Value, n)
		for i := range items {
			name := fmt.Sprintf("item %d", i)
			if i == changed {
				name = "changed"
			}
			items[i] = cty.ObjectVal(map[string]cty.Value{"id": cty.NumberIntVal(int64(i)), "name": cty.StringVal(name)})
		}
		inputs, diags := prog.ResolveInputs(map[string]compiler.InputValue{"items": {Value: cty.ListVal(items), Source: "test"}})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		counts := map[Status]int{}
		res, err := Apply(context.Background(), prog, Options{Inputs: inputs, Store: st, Observe: func(e Event) {
			if f, ok := e.(StepFinished); ok && f.Step == "each" && f.Instance != NoKey {
				counts[f.Status]++
			}
		}})
		if err != nil || res.Status != StatusOK {
			t.Fatalf("apply: %v %v", err, res.Diagnostics)
		}
		if got := res.Outputs["count"]; !got.RawEquals(cty.NumberIntVal(n)) {
			t.Errorf("count = %#v", got)
		}
		st.Flush()
		return counts
	}
	for _, c := range []struct {
		changed    int
		ok, cached int
	}{{-1, n, 0}, {-1, 0, n}, {7, 1, n - 1}} {
		got := apply(c.changed)
		if got[StatusOK] != c.ok || got[StatusCached] != c.cached || len(got) > 2 {
			t.Errorf("changed item %d: %v, want %d ok and %d cached", c.changed, got, c.ok, c.cached)
		}
	}
}
