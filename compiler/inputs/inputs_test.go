package inputs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/lang"
	"github.com/zclconf/go-cty/cty"
)

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestGiven: the environment's values, then the files', then the pairs':
// each later one wins, a pair's value is an HCL literal or else a string,
// and each value says where it came from.
func TestGiven(t *testing.T) {
	dir := t.TempDir()
	hclFile := filepath.Join(dir, "vals.tfvars")
	writeFile(t, hclFile, "topic = \"files\"\nn = 3\n")
	jsonFile := filepath.Join(dir, "vals.json")
	writeFile(t, jsonFile, `{"n": 4, "tags": ["a"]}`)
	environ := []string{"FLOWCTL_INPUT_TOPIC=env", "FLOWCTL_INPUT_who=ada", "FLOWCTL_INPUT_EMPTY=", "OTHER=x"}
	got, diags, err := Given(lang.NewParser(), environ, []string{hclFile, jsonFile}, []string{"who=[1, 2]", "word=hello world"})
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	for name, want := range map[string]string{"topic": hclFile, "n": jsonFile, "tags": jsonFile, "who": "--input who", "word": "--input word"} {
		if got[name].Source != want {
			t.Errorf("input %s from %q, want %q", name, got[name].Source, want)
		}
	}
	if _, ok := got["empty"]; ok {
		t.Errorf("an empty variable gave a value")
	}
	if v := got["who"].Value; !v.Type().IsTupleType() || v.LengthInt() != 2 {
		t.Errorf("who = %#v, want a tuple of two", v)
	}
	if v := got["word"].Value; !v.RawEquals(cty.StringVal("hello world")) {
		t.Errorf("word = %#v, want the string", v)
	}
	only, _, err := Given(lang.NewParser(), environ, nil, nil)
	if err != nil || !only["topic"].Optional || only["topic"].Source != "FLOWCTL_INPUT_TOPIC" {
		t.Errorf("the environment's topic: %+v %v", only["topic"], err)
	}
}

// TestGivenMistakes: a pair without a name and two variables for one
// input are errors naming them; a file's value that is not a literal is a
// diagnostic at its place.
func TestGivenMistakes(t *testing.T) {
	if _, _, err := Given(lang.NewParser(), nil, nil, []string{"=x"}); err == nil || err.Error() != `--input "=x" must have the form NAME=VALUE` {
		t.Errorf("a pair without a name: %v", err)
	}
	_, err := FromEnv([]string{"FLOWCTL_INPUT_topic=a", "FLOWCTL_INPUT_TOPIC=b"})
	if err == nil || err.Error() != `both FLOWCTL_INPUT_TOPIC and FLOWCTL_INPUT_topic give input "topic"; set only one` {
		t.Errorf("two variables: %v", err)
	}
	file := filepath.Join(t.TempDir(), "bad.hcl")
	writeFile(t, file, "a = upper(\"x\")\n")
	_, diags := ReadFile(lang.NewParser(), file)
	if !diags.HasErrors() || diags[0].Summary != "Invalid input value" || diags[0].Subject == nil || diags[0].Subject.Start.Line != 1 {
		t.Errorf("a call in an input file: %v", diags)
	}
	_, diags = ReadFile(lang.NewParser(), filepath.Join(t.TempDir(), "missing.json"))
	if !diags.HasErrors() || diags[0].Summary != "Cannot read path" || !strings.Contains(diags[0].Detail, "missing.json") {
		t.Errorf("a missing file: %v", diags)
	}
}
