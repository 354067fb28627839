package compiler_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang/jsonschema"
)

// TestFlowToolSchema: the model sees a flow tool's inputs without a
// default, and those tool_inputs names; never a sensitive one. The flow's
// own InputSchema (flowctl tools, flowctl mcp) keeps every input that is
// not sensitive.
func TestFlowToolSchema(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"main.flow.hcl": `flow "main" {}

step "plain" {
  use    = "llm"
  prompt = "go"
  tools  = [flow.lookup]
}

step "named" {
  use         = "llm"
  prompt      = "go"
  tools       = [flow.lookup]
  tool_inputs = { lookup = ["limit"] }
}
`,
		"lookup.flow.hcl": `flow "lookup" {}

input "word" {
  type = string
}

input "api_url" {
  type    = string
  default = "https://dictionary.example/api"
}

input "limit" {
  type    = number
  default = 3
}

input "token" {
  type      = string
  sensitive = true
  default   = "t"
}
`,
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	prog, diags := compiler.Compile(filepath.Join(dir, "main.flow.hcl"), compiler.Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	properties := func(schema jsonschema.Object) []string {
		var names []string
		for _, m := range schema {
			if props, ok := m.Value.(jsonschema.Object); ok && m.Key == "properties" {
				for _, p := range props {
					names = append(names, p.Key)
				}
			}
		}
		return names
	}
	for _, c := range []struct {
		step string
		want string
	}{
		{"plain", `["word"]`},
		{"named", `["word","limit"]`},
	} {
		got, _ := json.Marshal(properties(prog.StepsByName[c.step].Tools[0].InputSchema()))
		if string(got) != c.want {
			t.Errorf("step %s: the model sees %s, want %s", c.step, got, c.want)
		}
	}
	lookup := prog.StepsByName["plain"].Tools[0].Flow
	if got, _ := json.Marshal(properties(lookup.InputSchema())); string(got) != `["word","api_url","limit"]` {
		t.Errorf("flowctl tools sees %s", got)
	}
}
