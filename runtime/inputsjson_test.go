package runtime

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/zclconf/go-cty/cty"
)

// TestInputsRecordedAsGiven: inputs given as JSON are recorded with the
// run as their text, the others encoded from their values; a sensitive
// input is never recorded, whatever it was given as; and a resumed run
// reads the recorded text back as it was given.
func TestInputsRecordedAsGiven(t *testing.T) {
	prog := compile(t, `flow "f" {}
input "items" {
  type = list(object({ id = number }))
}
input "n" {
  type = number
}
input "key" {
  type      = string
  sensitive = true
}
step "s" {
  use   = "value"
  value = length(input.items) + input.n
}
output "total" {
  value = step.s.value
}
`)
	given := map[string]compiler.InputValue{
		"items": {Value: cty.TupleVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{"id": cty.NumberIntVal(1), "extra": cty.True})}),
			JSON: json.RawMessage(`[ {"id": 1, "extra": true} ]`), Source: "in.json"},
		"n":   {Value: cty.NumberIntVal(2), Source: "--input n"},
		"key": {Value: cty.StringVal("s3cret"), JSON: json.RawMessage(`"s3cret"`), Source: "in.json"},
	}
	inputs, diags := prog.ResolveInputs(given)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	st, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	res, err := Apply(context.Background(), prog, Options{Inputs: inputs, InputsJSON: prog.GivenJSON(given), Store: st})
	if err != nil || res.Status != StatusOK {
		t.Fatalf("apply: %v %v", err, res.Diagnostics)
	}
	run, err := st.Run(res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(run.Inputs), `{"items":[ {"id": 1, "extra": true} ],"key":"(sensitive)","n":2}`; got != want {
		t.Errorf("recorded inputs %s, want %s", got, want)
	}
	again, diags := ResumeInputs(prog, run, map[string]cty.Value{"key": cty.StringVal("s3cret")})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for name, v := range inputs {
		if !again[name].Equals(v).True() {
			t.Errorf("input %s read back as %#v, want %#v", name, again[name], v)
		}
	}
}
