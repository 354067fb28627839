package thinker

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// A problem is an error of an attempt as the repair request states it:
// where it is (the step and argument, the output or input, or the flow),
// the text at fault as it stands in the flow file, and the problem with
// its fix, in one line.
type problemLine struct {
	Where string `json:"where"`
	Text  string `json:"text,omitempty"`
	Fix   string `json:"problem_and_fix"`
}

// maxProblemText is how much of the text at fault a problem quotes.
const maxProblemText = 200

// problems are the errors of an attempt, each placed in the flow: a
// diagnostic with a range is placed by the block and attribute of the
// flow file it falls in; one without a range names its place itself
// (the generators word them so).
func problems(a *attempt) []problemLine {
	file, _ := hclsyntax.ParseConfig(a.src, a.path, hcl.InitialPos)
	var body *hclsyntax.Body
	if file != nil {
		body, _ = file.Body.(*hclsyntax.Body)
	}
	var out []problemLine
	for _, d := range a.diags {
		if d.Severity != hcl.DiagError {
			continue
		}
		p := problemLine{Where: "the flow", Fix: oneLine(d)}
		if d.Subject != nil && d.Subject.Filename == a.path {
			p.Where, p.Text = place(body, a.src, *d.Subject)
		} else if d.Subject == nil {
			p.Where = "the reply"
		}
		out = append(out, p)
	}
	return out
}

// place names where rng falls in a flow file — `step "count", argument
// "text"`, `output "total"`, `input "url"` or the flow — and quotes the
// source text: the whole value of the argument it falls in, else its own.
func place(body *hclsyntax.Body, src []byte, rng hcl.Range) (string, string) {
	quote := func(rng hcl.Range) string {
		if rng.End.Byte > len(src) || rng.Start.Byte >= rng.End.Byte {
			return ""
		}
		text := strings.TrimSpace(string(src[rng.Start.Byte:rng.End.Byte]))
		if r := []rune(text); len(r) > maxProblemText {
			text = string(r[:maxProblemText]) + "…"
		}
		return text
	}
	text := quote(rng)
	if body == nil {
		return "the flow", text
	}
	for _, b := range body.Blocks {
		if !holds(b.Range(), rng) && !holds(b.DefRange(), rng) {
			continue
		}
		where := b.Type
		if len(b.Labels) > 0 {
			where = fmt.Sprintf("%s %q", b.Type, b.Labels[0])
		}
		for name, attr := range b.Body.Attributes {
			if holds(attr.SrcRange, rng) {
				what := "argument"
				if b.Type != "step" {
					what = "attribute"
				}
				return fmt.Sprintf("%s, %s %q", where, what, name), quote(attr.Expr.Range())
			}
		}
		return where, text
	}
	return "the flow", text
}

// holds reports whether outer holds inner.
func holds(outer, inner hcl.Range) bool {
	return inner.Start.Byte >= outer.Start.Byte && inner.End.Byte <= outer.End.Byte
}

// oneLine is a diagnostic's summary and detail on one line.
func oneLine(d *hcl.Diagnostic) string {
	s := strings.TrimSuffix(d.Summary, ".")
	if d.Detail != "" {
		s += ": " + d.Detail
	}
	return strings.Join(strings.Fields(s), " ")
}
