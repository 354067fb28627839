package thinker

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/blocks"
)

// TestProblems is the table of what the repair request says of each kind
// of error a wire reply can have: where it is, the text at fault, and
// the problem with its fix.
func TestProblems(t *testing.T) {
	base := `{"name": "f", "description": "", "inputs": [{"name": "url", "type": "string", "description": "", "default": null}],
		"steps": [%s], "outputs": [%s]}`
	for _, c := range []struct {
		name, steps, outputs string
		where, text, fix     string
	}{
		{"unknown step",
			`{"name": "read", "use": "file", "args": {"path": "step.reed.text"}, "depends_on": []}`, ``,
			`step "read", argument "path"`, `step.reed.text`, `Did you mean`},
		{"wrong type",
			`{"name": "get", "use": "http", "args": {"url": "[\"a\", \"b\"]"}, "depends_on": []}`, ``,
			`step "get", argument "url"`, `["a", "b"]`, `must be a string`},
		{"unknown block",
			`{"name": "get", "use": "htp", "args": {"url": "input.url"}, "depends_on": []}`, ``,
			`step "get", argument "use"`, `"htp"`, `Did you mean "http"?`},
		{"missing required input",
			`{"name": "read", "use": "file", "args": {}, "depends_on": []}`, ``,
			`step "read"`, `step "read"`, `requires input "path"`},
		{"unknown input",
			`{"name": "get", "use": "http", "args": {"url": "input.adress"}, "depends_on": []}`, ``,
			`step "get", argument "url"`, `input.adress`, `input`},
		{"output of a missing step",
			``, `{"name": "o", "value": "step.nothing.value"}`,
			`output "o", attribute "value"`, `step.nothing.value`, `The flow has no steps.`},
		{"unknown output field",
			`{"name": "v", "use": "value", "args": {"value": "1"}, "depends_on": []}`, `{"name": "o", "value": "step.v.valu"}`,
			`output "o", attribute "value"`, `step.v.valu`, `Did you mean "value"?`},
		{"expression that does not parse",
			`{"name": "v", "use": "value", "args": {"value": "1 +"}, "depends_on": []}`, ``,
			`the reply`, ``, `The argument "value" of step "v", "1 +", is not a valid HCL expression`},
		{"unquoted text",
			`{"name": "get", "use": "http", "args": {"url": "https://example.com"}, "depends_on": []}`, ``,
			`the reply`, ``, `Text is written in quotes`},
		{"template",
			`{"name": "v", "use": "value", "args": {"value": "{{body}}"}, "depends_on": []}`, ``,
			`the reply`, ``, `write the reference step.body (no quotes, no braces)`},
		{"unknown argument",
			`{"name": "v", "use": "value", "args": {"value": "1", "valu": "2"}, "depends_on": []}`, ``,
			`step "v", argument "valu"`, `2`, `its inputs are value`},
		{"cycle",
			`{"name": "a", "use": "value", "args": {"value": "step.b.value"}, "depends_on": []},
			 {"name": "b", "use": "value", "args": {"value": "step.a.value"}, "depends_on": []}`, ``,
			`step "a", argument "value"`, `step.b.value`, `cycle`},
		{"step named twice",
			`{"name": "v", "use": "value", "args": {"value": "1"}, "depends_on": []},
			 {"name": "v", "use": "value", "args": {"value": "2"}, "depends_on": []}`, ``,
			`step "v"`, `"v"`, `Duplicate step`},
		{"wrong output type for a for_each",
			`{"name": "v", "use": "value", "args": {"value": "1", "for_each": "5"}, "depends_on": []}`, ``,
			`step "v", argument "for_each"`, `5`, `for_each`},
		{"each.NAME for an element's attribute",
			`{"name": "v", "use": "value", "args": {"value": "each.price * 2", "for_each": "[{ price = 1 }, { price = 2 }]"}, "depends_on": []}`, ``,
			`step "v", argument "value"`, `each.price * 2`, `Did you mean each.value.price?`},
		{"unknown depends_on",
			`{"name": "v", "use": "value", "args": {"value": "1"}, "depends_on": ["nope"]}`, ``,
			`step "v", argument "depends_on"`, `[step.nope]`, `Its steps are v.`},
	} {
		t.Run(c.name, func(t *testing.T) {
			var reply wireReply
			if err := json.Unmarshal([]byte(strings.Replace(strings.Replace(base, "%s", c.steps, 1), "%s", c.outputs, 1)), &reply); err != nil {
				t.Fatal(err)
			}
			r := &run{opts: Options{}, dir: t.TempDir(), res: &Result{}, reg: blocks.NewRegistry()}
			a := r.attempt(&reply, StageWire, 0, nil)
			ps := problems(a)
			for _, p := range ps {
				if p.Where == c.where && p.Text == c.text && strings.Contains(p.Fix, c.fix) {
					return
				}
			}
			t.Errorf("no problem at %s quoting %q with %q; got %+v", c.where, c.text, c.fix, ps)
		})
	}
}
