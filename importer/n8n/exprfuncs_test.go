package n8n

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/dop251/goja"
)

// n8n's $if, $ifEmpty and $item in expressions goja evaluates: $if
// rewritten as n8n rewrites it (a conditional, only the branch taken
// evaluated), $ifEmpty and $item(i) given by the adapter.

func TestRewriteIf(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		// From automation__1897_Webhook_Filter_Sync_Webhook.json
		// (oxbshw+ultimate-n8n-ai-workflows), "Differences exist1".
		{`={{ $if($('Map Todoist to Notion1').item.json.due !== null, $('Map Todoist to Notion1').item.json.due.toDateTime().toISO(), null) }}`,
			`={{ (($('Map Todoist to Notion1').item.json.due !== null) ? ($('Map Todoist to Notion1').item.json.due.toDateTime().toISO()) : (null)) }}`},
		{`={{ $if($json.a, 'x, y') }}`, `={{ (($json.a) ? ('x, y') : (false)) }}`},
		{`=a {{ $if($json.a, $if($json.b, 1, 2), [3, 4]) }} b {{ $if(1,2) }}`, `=a {{ (($json.a) ? ((($json.b) ? (1) : (2))) : ([3, 4])) }} b {{ ((1) ? (2) : (false)) }}`},
		{`={{ $ifEmpty($json.a, 1) }}`, `={{ $ifEmpty($json.a, 1) }}`},
	} {
		got, _ := rewriteIf(c.in)
		if got != c.want {
			t.Errorf("rewriteIf(%s)\n = %s\nwant %s", c.in, got, c.want)
		}
	}
	// n8n fails on a call with one argument; a spread is not rewritten
	// (n8n leaves it a call of a function it does not have).
	for _, in := range []string{`={{ $if($json.a) }}`, `={{ $if(...$json.list) }}`, `={{ $if($json.a / 2, 1, 2) }}`, `={{ $if }}`} {
		if got, ok := rewriteIf(in); ok || got != in {
			t.Errorf("rewriteIf(%s) = %s, %v; want it left", in, got, ok)
		}
	}
}

// A $if left as it is is refused; one rewritten is evaluated by goja.
func TestIfRefusedWhenNotRewritten(t *testing.T) {
	_, diags := importWhole(t, workflow("w", setData,
		`"name": "Out", "type": "n8n-nodes-base.set", "typeVersion": 3.4, "parameters": {"assignments": {"assignments": [{"id": "1", "name": "q", "value": "={{ $if($json.q) }}", "type": "string"}]}}`))
	if !strings.Contains(diags.Error(), "$if") {
		t.Errorf("diagnostics %v, want $if refused", diags)
	}
	flow := mustValidate(t, workflow("w", setData,
		`"name": "Out", "type": "n8n-nodes-base.set", "typeVersion": 3.4, "parameters": {"assignments": {"assignments": [{"id": "1", "name": "q", "value": "={{ $if($json.q, 'yes', 'no') }}", "type": "string"}]}}`))
	if !strings.Contains(flow, `"={{ (($json.q) ? ('yes') : ('no')) }}"`) {
		t.Errorf("no rewritten $if in:\n%s", flow)
	}
}

// The values of the adapter's expressions, run in goja on the adapter
// itself (importer/testdata/n8n/expression_functions.txtar checks them
// against n8n).
func TestExpressionFunctions(t *testing.T) {
	vm := goja.New()
	if _, err := vm.RunString(n8nAdapterJS); err != nil {
		t.Fatal(err)
	}
	execute, _ := goja.AssertFunction(vm.Get("execute"))
	input := map[string]any{"mode": "expressions", "index": 1,
		"items": []any{map[string]any{"a": "", "b": []any{}}, map[string]any{"a": "x", "b": map[string]any{}}},
		"nodes": map[string]any{"Other": []any{map[string]any{"o": 1}, map[string]any{"o": 2}}},
		"expressions": map[string]any{
			"empty":      "={{ $ifEmpty($item(0).$json.a, 'd') }}",
			"notEmpty":   "={{ $ifEmpty($json.a, 'd') }}",
			"emptyList":  "={{ $ifEmpty($item(0).$json.b, 'd') }}",
			"emptyObj":   "={{ $ifEmpty($json.b, 'd') }}",
			"item0":      `={{ $item(0).$node["Other"].json.o }}`,
			"itemString": `={{ $item("0").$node["Other"].json.o }}`,
			"own":        `={{ $node["Other"].json.o }}`,
		}}
	v, err := execute(goja.Undefined(), vm.ToValue(input))
	if err != nil {
		t.Fatal(err)
	}
	p := v.Export().(*goja.Promise)
	if p.State() != goja.PromiseStateFulfilled {
		t.Fatalf("execute: %v", p.Result())
	}
	b, _ := json.Marshal(p.Result().Export())
	var out struct{ Values map[string]any }
	json.Unmarshal(b, &out)
	want := map[string]any{"empty": "d", "notEmpty": "x", "emptyList": "d", "emptyObj": "d", "item0": 1.0, "itemString": 1.0, "own": 2.0}
	if !reflect.DeepEqual(out.Values, want) {
		t.Errorf("values %v, want %v", out.Values, want)
	}
	// An item the input does not have fails, as in n8n.
	input["expressions"] = map[string]any{"x": "={{ $item(5).$json.a }}"}
	v, err = execute(goja.Undefined(), vm.ToValue(input))
	if err == nil {
		if p := v.Export().(*goja.Promise); p.State() != goja.PromiseStateRejected {
			t.Errorf("$item(5).$json: %v, want an error", p.Result())
		}
	}
}

// From workflows__ai-agents__0394_HTTP_Spreadsheetfile_Create_Webhook.json
// (oxbshw+ultimate-n8n-ai-workflows): the URL of "Airtable Upload" reads
// $item("0").$node["Airtable Base IDs"].
func TestItemInExpression(t *testing.T) {
	flow := mustValidate(t, workflow("w",
		`"name": "Airtable Base IDs", "type": "n8n-nodes-base.set", "typeVersion": 3.4, "parameters": {"assignments": {"assignments": [{"id": "1", "name": "Base ID", "value": "app1", "type": "string"}, {"id": "2", "name": "Upload Table ID", "value": "tbl1", "type": "string"}]}}`,
		`"name": "Airtable Upload", "type": "n8n-nodes-base.httpRequest", "typeVersion": 4.2, "parameters": {"url": "=http://127.0.0.1:1/v0/{{ $item(\"0\").$node[\"Airtable Base IDs\"].json[\"Base ID\"] }}/{{ $item(\"0\").$node[\"Airtable Base IDs\"].json[\"Upload Table ID\"] }}", "options": {}}`))
	if !strings.Contains(flow, `"Airtable Base IDs" = step.airtable_base_i_ds[*].value`) {
		t.Errorf("the expression step is not given the node's items:\n%s", flow)
	}
}
