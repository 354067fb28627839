package views

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/runtime/evaluate/result"
)

// TestEvalReportMarkdownIsText: what a model wrote is shown in the
// Markdown report as it is inside code spans (no entity shows as
// "&lt;"), and outside them (a run's error) makes no markup: no HTML, no
// image or link a viewer would fetch. Rows are counted from 1.
func TestEvalReportMarkdownIsText(t *testing.T) {
	c := result.NewComparer()
	in := json.RawMessage(`{"ticket":"t"}`)
	score := func(v float64) []result.Score { return []result.Score{{Name: "category", Value: v}} }
	c.AddBase(result.Case{Variant: "v", Row: 0, Inputs: in, Outputs: json.RawMessage(`{"reply":"ok"}`), Scores: score(1)})
	c.AddHead(result.Case{Variant: "v", Row: 0, Inputs: in, Outputs: json.RawMessage(`{"reply":"<b>x</b>"}`), Scores: score(0)})
	in2 := json.RawMessage(`{"ticket":"u"}`)
	c.AddBase(result.Case{Variant: "v", Row: 1, Inputs: in2, Outputs: json.RawMessage(`{}`), Scores: score(1)})
	c.AddHead(result.Case{Variant: "v", Row: 1, Inputs: in2, Error: `the reply was ![x](https://evil.example/p.png) <img src=x> \[y](z)`, Scores: score(0)})
	var b bytes.Buffer
	if err := WriteEvalReport(&b, false, result.Summary{Eval: "triage", Flow: "triage"}, c.Compare("A", "B")); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"| v | 1 | category | 1.000 | 0.000 | `{\"ticket\":\"t\"}` | `{\"reply\":\"ok\"}` | `{\"reply\":\"<b>x</b>\"}` |",
		`| v | 2 | category | 1.000 | 0.000 | ` + "`" + `{"ticket":"u"}` + "`" + ` | ` + "`{}`" + ` | error: the reply was !\[x\](https://evil.example/p.png) &lt;img src=x&gt; \\\[y\](z) |`,
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the report lacks\n%s\n%s", want, md)
		}
	}
}
