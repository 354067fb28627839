package n8n

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/dop251/goja"
)

// The pairs the n8n_code block gives a Code node's items (run once for
// all items), as n8n sets them after the node ran
// (WorkflowExecute.assignPairedItems): run in goja on the adapter itself.
func TestCodePairs(t *testing.T) {
	for _, c := range []struct {
		name, code string
		items      int
		want       []any
	}{
		{"new items, as many", `return $input.all().map(i => ({ json: { x: 1 } }))`, 3, []any{0.0, 1.0, 2.0}},
		{"one item in", `return [{ json: {} }, { json: {} }]`, 1, []any{0.0, 0.0}},
		{"one item out", `return [{ json: { n: items.length } }]`, 3, []any{0.0}},
		{"fewer out, none known", `return [{ json: {} }, { json: {} }]`, 3, []any{nil, nil}},
		{"input items returned, reordered", `return $input.all().reverse()`, 3, []any{2.0, 1.0, 0.0}},
		{"input items kept by a filter", `return items.filter((it, i) => i > 0)`, 3, []any{1.0, 2.0}},
		{"pairs the code gives", `return [{ json: {}, pairedItem: 2 }, { json: {}, pairedItem: { item: 0 } }]`, 3, []any{2.0, 0.0}},
		{"several pairs", `return [{ json: {}, pairedItem: [{ item: 0 }, { item: 1 }] }]`, 3, []any{nil}},
		{"another input", `return [{ json: {}, pairedItem: { item: 0, input: 1 } }]`, 3, []any{nil}},
		{"out of range", `return [{ json: {}, pairedItem: 5 }]`, 3, []any{nil}},
		// Another node's items carry that node's own pairs in n8n.
		{"another node's items", `return $('Other').all()`, 3, []any{nil, nil}},
	} {
		t.Run(c.name, func(t *testing.T) {
			vm := goja.New()
			if _, err := vm.RunString(n8nCodeJS); err != nil {
				t.Fatal(err)
			}
			execute, ok := goja.AssertFunction(vm.Get("execute"))
			if !ok {
				t.Fatal("no execute")
			}
			items := make([]any, c.items)
			for i := range items {
				items[i] = map[string]any{"i": i}
			}
			input := map[string]any{"mode": "runOnceForAllItems", "code": c.code, "items": items,
				"nodes": map[string]any{"Other": []any{map[string]any{"o": 1}, map[string]any{"o": 2}}}}
			v, err := execute(goja.Undefined(), vm.ToValue(input))
			if err != nil {
				t.Fatal(err)
			}
			p, ok := v.Export().(*goja.Promise)
			if !ok || p.State() != goja.PromiseStateFulfilled {
				t.Fatalf("execute: %v", p.Result())
			}
			b, _ := json.Marshal(p.Result().Export())
			var out struct{ Pairs []any }
			json.Unmarshal(b, &out)
			if !reflect.DeepEqual(out.Pairs, c.want) {
				t.Errorf("pairs %v, want %v", out.Pairs, c.want)
			}
		})
	}
}
