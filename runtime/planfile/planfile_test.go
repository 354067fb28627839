package planfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/zclconf/go-cty/cty"
)

const flow = `flow "f" {}

input "topic" {
  type    = string
  default = "news"
}

input "key" {
  type      = string
  sensitive = true
  default   = "k"
}

step "v" {
  use   = "value"
  value = input.topic
}
`

// TestRoundTrip: a saved plan keeps the flow's hash and its inputs but
// the sensitive ones, reads back with its values, refuses inputs that
// are not sensitive and a go engine of its own, goes stale when the flow
// changes, and is applied once.
func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	flowFile := filepath.Join(dir, "f.flow.hcl")
	os.WriteFile(flowFile, []byte(flow), 0o644)
	compile := func() *compiler.Program {
		prog, diags := compiler.Compile(flowFile, compiler.Options{Parser: lang.NewParser()})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		return prog
	}
	prog := compile()
	vals, diags := prog.ResolveInputs(map[string]compiler.InputValue{"topic": {Value: cty.StringVal("sport")}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	plan, diags := runtime.Plan(prog, runtime.Options{Inputs: vals})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	path := filepath.Join(dir, "out", "plan.json")
	os.Mkdir(filepath.Dir(path), 0o755)
	if err := Write(path, plan, "team", true, map[string]string{"shown": "<yes>"}); err != nil {
		t.Fatal(err)
	}
	if !Is(path) || Is(flowFile) {
		t.Errorf("Is: a plan is a .json file")
	}
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), `"flow_file": "../f.flow.hcl"`) || !strings.Contains(string(b), `"shown": "\u003cyes\u003e"`) || strings.Contains(string(b), `"k"`) {
		t.Errorf("the file:\n%s", b)
	}
	sp, diags := Read(path)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if sp.Namespace != "team" || !sp.NoCache || sp.ID == "" || sp.FlowPath(path) != flowFile {
		t.Errorf("read %+v", sp)
	}
	if _, err := sp.Given(path, "", map[string]compiler.InputValue{"topic": {}}); err == nil || !strings.Contains(err.Error(), "--input topic cannot change a saved plan") {
		t.Errorf("a new topic: %v", err)
	}
	sp.GoEngine = lang.EngineCompiled
	if got, err := sp.Given(path, "", nil); got != lang.EngineCompiled || err != nil {
		t.Errorf("the plan's engine: %q %v", got, err)
	}
	if _, err := sp.Given(path, lang.EngineInterpreted, nil); err == nil || !strings.Contains(err.Error(), "was planned with --go-engine compiled") {
		t.Errorf("another engine: %v", err)
	}
	given := map[string]compiler.InputValue{"key": {Value: cty.StringVal("secret")}}
	values, diags := sp.Values(path, compile(), given)
	if diags.HasErrors() || !values["topic"].Value.RawEquals(cty.StringVal("sport")) || !values["key"].Value.RawEquals(cty.StringVal("secret")) {
		t.Errorf("values %#v %v", values, diags)
	}
	os.WriteFile(flowFile, []byte(flow+"\n# changed\n"), 0o644)
	if _, diags := sp.Values(path, compile(), nil); !diags.HasErrors() || diags[0].Summary != "Saved plan is stale" {
		t.Errorf("a changed flow: %v", diags)
	}

	st, err := state.Open(filepath.Join(dir, ".flowctl"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if diags := Claim(st, path, sp, state.NewRunID()); diags.HasErrors() {
		t.Fatal(diags)
	}
	if diags := Claim(st, path, sp, state.NewRunID()); !diags.HasErrors() || diags[0].Summary != "Saved plan already applied" {
		t.Errorf("applied twice: %v", diags)
	}
	os.WriteFile(path, []byte(`{"flow": "f"}`), 0o644)
	if _, diags := Read(path); !diags.HasErrors() || diags[0].Summary != "Invalid saved plan" {
		t.Errorf("not a plan: %v", diags)
	}
}
