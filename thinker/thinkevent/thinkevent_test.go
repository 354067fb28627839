package thinkevent

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/flowctl/flowctl/blocks"
	"github.com/zclconf/go-cty/cty"
)

// TestUsage: a command's usage as its JSON shows it (stages a list, empty
// when none), its total and its calls by stage.
func TestUsage(t *testing.T) {
	got, err := json.Marshal(Usage{}.JSON())
	if err != nil || string(got) != `{"calls":0,"prompt_tokens":0,"completion_tokens":0,"stages":[]}` {
		t.Errorf("no usage: %s (%v)", got, err)
	}
	u := Usage{Calls: 3, PromptTokens: 100, CompletionTokens: 20, Stages: []StageUsage{
		{Stage: StageDecompose, Calls: 1, PromptTokens: 40, CompletionTokens: 5},
		{Stage: StageWire, Calls: 2, PromptTokens: 60, CompletionTokens: 15},
	}}
	got, _ = json.Marshal(u.JSON())
	want := `{"calls":3,"prompt_tokens":100,"completion_tokens":20,"stages":[` +
		`{"stage":"decompose","calls":1,"prompt_tokens":40,"completion_tokens":5},{"stage":"wire","calls":2,"prompt_tokens":60,"completion_tokens":15}]}`
	if string(got) != want {
		t.Errorf("usage %s", got)
	}
	if u.Total() != (blocks.Usage{PromptTokens: 100, CompletionTokens: 20, TotalTokens: 120}) {
		t.Errorf("total %+v", u.Total())
	}
	if u.CallsOf(StageWire) != 2 || u.CallsOf(StageRepair) != 0 {
		t.Errorf("calls of wire %d, of repair %d", u.CallsOf(StageWire), u.CallsOf(StageRepair))
	}
}

// TestChange: an edit's change as think prints it and as its JSON says.
func TestChange(t *testing.T) {
	if !(Change{}).Empty() || (Change{Removed: []string{"output old"}}).Empty() {
		t.Error("Empty")
	}
	c := Change{Added: []string{"step count (count_words)"}, Changed: []string{"step read: path"}, Removed: []string{"output old"}}
	if got := c.Lines(); !slices.Equal(got, []string{"+ step count (count_words)", "~ step read: path", "- output old"}) {
		t.Errorf("lines %q", got)
	}
	got, _ := json.Marshal(c)
	if string(got) != `{"added":["step count (count_words)"],"changed":["step read: path"],"removed":["output old"]}` {
		t.Errorf("JSON %s", got)
	}
}

// TestFieldSpecJSON: a block spec's JSON is the decompose stage's, without
// the type the thinker parsed.
func TestFieldSpecJSON(t *testing.T) {
	s := BlockSpec{ID: "b", Runtime: "go", Inputs: []FieldSpec{{Name: "n", Type: "number", Description: "a number", Parsed: cty.Number}}}
	got, _ := json.Marshal(s)
	if string(got) != `{"id":"b","description":"","runtime":"go","inputs":[{"name":"n","type":"number","description":"a number"}],"outputs":null}` {
		t.Errorf("JSON %s", got)
	}
}

// TestCapText: a text cut to its bytes at a rune boundary, with a marker
// saying how much was cut.
func TestCapText(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"abcdef", 3, "abc…[cut: 3 more bytes]"},
		{"aé€x", 3, "aé…[cut: 4 more bytes]"}, // é is 2 bytes: 1+2 fit
		{"a€x", 3, "a…[cut: 4 more bytes]"},   // € is 3 bytes: not cut in two
	} {
		if got := CapText(c.s, c.n); got != c.want {
			t.Errorf("CapText(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}
