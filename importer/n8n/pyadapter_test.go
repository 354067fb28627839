package n8n

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// The n8n_python adapter makes items of what the code returns by n8n's
// rules (validateRunCodeAllItems, validateRunCodeEachItem,
// normalizeItems), run here by python3 directly.
func TestPythonAdapterItems(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	cases := []struct{ mode, code, want string }{
		{"runOnceForAllItems", "return [{'index': 1, 'name': 'x'}]", "error: Unknown top-level item key: name, beside index [item 0]"},
		{"runOnceForAllItems", "return [{'a': 1}, {'json': {}}]", "error: Unknown top-level item key: a [item 0]"},
		{"runOnceForAllItems", "return [{'pairedItem': 0}, {'json': {}}]", "error: Inconsistent item format"},
		{"runOnceForAllItems", "return {'json': {}}", `{"items": [{}], "pairs": [0]}`},
		{"runOnceForAllItems", "return {'json': 0}", `{"items": [{"json": 0}], "pairs": [0]}`},
		{"runOnceForAllItems", "return None", "error: Code doesn't return items properly"},
		{"runOnceForAllItems", "return [{'json': []}]", "error: A 'json' property isn't a dictionary [item 0]"},
		{"runOnceForAllItems", "return _input.all()[::-1]", `{"items": [{"n": 2}, {"n": 1}], "pairs": [1, 0]}`},
		{"runOnceForAllItems", "return [{'m': i.json.n * 10} for i in items]", `{"items": [{"m": 10}, {"m": 20}], "pairs": [0, 1]}`},
		{"runOnceForEachItem", "return {'a': 1, 'index': 2}", `{"items": [{"a": 1, "index": 2}], "pairs": [1]}`},
		{"runOnceForEachItem", "return {'json': {'n': _json.n}, 'x': 1}", "error: Unknown top-level item key: x, beside json [item 1]"},
		{"runOnceForEachItem", "return [item]", "error: Code doesn't return a single dictionary [item 1]"},
		{"runOnceForEachItem", "item.json.n += 1\nreturn item", `{"items": [{"n": 3}], "pairs": [1]}`},
	}
	var inputs []any
	for _, c := range cases {
		inputs = append(inputs, map[string]any{"mode": c.mode, "code": c.code, "items": []any{map[string]any{"n": 1}, map[string]any{"n": 2}},
			"index": 1, "nodes": map[string]any{}, "pairs": map[string]any{}, "workflow": "w"})
	}
	all, _ := json.Marshal(inputs)
	// One interpreter for all the cases.
	harness := n8nPythonSource + "\nimport json, sys\nfor x in json.loads(sys.argv[1]):\n    try:\n        print(json.dumps(execute(x, None)))\n    except AdapterError as e:\n        print('error: ' + str(e))\n"
	out, err := exec.Command(py, "-c", harness, string(all)).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(cases) {
		t.Fatalf("%d answers to %d cases:\n%s", len(lines), len(cases), out)
	}
	for i, c := range cases {
		if got := lines[i]; !strings.HasPrefix(got, c.want) {
			t.Errorf("%s %q:\n got %s\nwant %s", c.mode, c.code, got, c.want)
		}
	}
}
