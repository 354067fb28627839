package api

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/compiler"
)

const argsFlow = `flow "shout" {}

input "text" {
  type = string
}

input "times" {
  type    = number
  default = 1
}

input "tags" {
  type    = list(object({ name = string, weight = number }))
  default = []
}

input "key" {
  type      = string
  sensitive = true
  default   = "k"
}
`

func compile(t *testing.T, src string) *compiler.Program {
	t.Helper()
	file := filepath.Join(t.TempDir(), "f.flow.hcl")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	prog, diags := compiler.Compile(file, compiler.Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return prog
}

// TestCheckArguments: each problem names the argument, the JSON type of
// its value and the JSON Schema's expectation, and never a command line's
// flags or variables. (Issue 34: a misspelt argument was told to use
// --input text=VALUE or FLOWCTL_INPUT_text.)
func TestCheckArguments(t *testing.T) {
	prog := compile(t, argsFlow)
	for _, c := range []struct {
		args string
		want []string
	}{
		{`{"text": "hi"}`, nil},
		{`{"text": "hi", "times": 3, "tags": [{"name": "a", "weight": 1}]}`, nil},
		{`{"text": "hi", "times": null}`, nil},
		{`{"txt": "hi"}`, []string{
			`Argument "txt" is not in the JSON Schema of flow "shout"'s arguments, which allows no others (additionalProperties: false); its properties are "tags" (an array), "text" (a string, required), "times" (a number). Did you mean "text"?`,
			`Argument "text" is missing: the JSON Schema requires it, a string (JSON Schema {"type":"string"}).`,
		}},
		{`{"text": "hi", "times": "3"}`, []string{
			`Argument "times" is a string "3", but the JSON Schema expects a number (JSON Schema {"default":1,"type":"number"}): type: 3 has type "string", want "number".`,
		}},
		{`{"text": 5}`, []string{`Argument "text" is a number 5, but the JSON Schema expects a string`}},
		{`{"text": "hi", "tags": [{"name": "a"}]}`, []string{`Argument "tags" is an array [{"name":"a"}], but the JSON Schema expects an array`, `missing properties: ["weight"]`}},
		{`{"text": "hi", "key": "s3cret"}`, []string{`Argument "key" is a sensitive input of flow "shout", which a client may not give`}},
	} {
		var args map[string]json.RawMessage
		if err := json.Unmarshal([]byte(c.args), &args); err != nil {
			t.Fatal(err)
		}
		got := CheckArguments(prog, args)
		text := strings.Join(got, "\n")
		if len(c.want) == 0 && len(got) > 0 {
			t.Errorf("%s: %s", c.args, text)
		}
		for _, w := range c.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s:\n got %s\nwant %s", c.args, text, w)
			}
		}
		for _, cli := range []string{"--input", "FLOWCTL_", "--"} {
			if strings.Contains(text, cli) {
				t.Errorf("%s: speaks of the command line (%s): %s", c.args, cli, text)
			}
		}
	}
}
