package views

import (
	"fmt"
	"io"
	"strings"

	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// A flow attempt of the thinker often has one problem at many places (the
// same missing input in every step), and the next attempt the same
// problems again: think shows each distinct problem once per attempt,
// says when an attempt has the problems of the one before, and ends with
// what is still wrong, each problem once.

// problemKey is what two diagnostics of one problem have alike: all but
// the place.
func problemKey(d *hcl.Diagnostic) string {
	return fmt.Sprintf("%d\x00%s\x00%s", d.Severity, d.Summary, d.Detail)
}

// distinctProblems are the errors of diags, each problem once: the first
// diagnostic of each, with the places of the others.
func distinctProblems(diags hcl.Diagnostics) ([]*hcl.Diagnostic, map[*hcl.Diagnostic][]hcl.Range) {
	var out []*hcl.Diagnostic
	more := map[*hcl.Diagnostic][]hcl.Range{}
	first := map[string]*hcl.Diagnostic{}
	for _, d := range diags {
		if d.Severity != hcl.DiagError {
			continue
		}
		k := problemKey(d)
		if f, ok := first[k]; ok {
			if d.Subject != nil {
				more[f] = append(more[f], *d.Subject)
			}
			continue
		}
		first[k] = d
		out = append(out, d)
	}
	return out, more
}

// placesText is " (and at 2 more places: f.flow.hcl:9,3, f.flow.hcl:13,3)".
func placesText(rs []hcl.Range) string {
	if len(rs) == 0 {
		return ""
	}
	const shown = 5
	var at []string
	for _, r := range rs[:min(len(rs), shown)] {
		at = append(at, lang.RangeString(r))
	}
	if len(rs) > shown {
		at = append(at, "…")
	}
	return fmt.Sprintf(" (and at %s: %s)", Plural(len(rs), "more place", "more places"), strings.Join(at, ", "))
}

// writeAttemptProblems prints the problems of a flow attempt, each once,
// or says that they are those of the attempt before (prev, updated).
func writeAttemptProblems(w io.Writer, file string, diags hcl.Diagnostics, prev map[string]bool) map[string]bool {
	problems, more := distinctProblems(diags)
	errs, _ := CountDiags(diags)
	keys := map[string]bool{}
	same := len(prev) == len(problems)
	for _, d := range problems {
		keys[problemKey(d)] = true
		same = same && prev[problemKey(d)]
	}
	what := Plural(errs, "error", "errors")
	if len(problems) != errs {
		what += ", " + Plural(len(problems), "problem", "problems")
	}
	if same {
		fmt.Fprintf(w, "    ✗ %s has %s: the same as the attempt before\n", file, what)
		return keys
	}
	fmt.Fprintf(w, "    ✗ %s has %s\n", file, what)
	for _, d := range problems {
		mark := ""
		if prev[problemKey(d)] {
			mark = "still: "
		}
		fmt.Fprintf(w, "        %s%s%s\n", mark, diagLine(d), placesText(more[d]))
	}
	return keys
}

// WriteStillWrong prints what is still wrong with the last attempt, each
// problem once, in full, with the places where it is too.
func WriteStillWrong(w io.Writer, color bool, files map[string]*hcl.File, diags hcl.Diagnostics) {
	problems, more := distinctProblems(diags)
	var out hcl.Diagnostics
	for _, d := range problems {
		if rs := more[d]; len(rs) > 0 {
			c := *d
			c.Detail = strings.TrimSpace(d.Detail + placesText(rs))
			d = &c
		}
		out = append(out, d)
	}
	WriteDiagnostics(w, color, files, out)
}

// nextCommand is the command to run next on a flow think wrote: flowctl
// plan FILE, with a placeholder --input for each input it requires and a
// --secret for each secret, so that it works as written.
func nextCommand(file string, files map[string]*hcl.File, registries []string) string {
	args := []string{"flowctl", "plan", ShellQuote(file)}
	if f := files[file]; f != nil {
		if flow, _ := lang.DecodeFlowFile(f, file); flow != nil {
			for _, in := range flow.Inputs {
				if in.Required() {
					args = append(args, "--input", ShellQuote(in.Name+"="+placeholder(in.Name, in.Type.Type)))
				}
			}
			for _, s := range flow.Secrets {
				args = append(args, "--secret", ShellQuote(s.Name+"="+strings.ToUpper(s.Name)))
			}
		}
	}
	for _, r := range registries {
		args = append(args, "--registry", ShellQuote(r))
	}
	return strings.Join(args, " ")
}

// placeholder is a value of type t to stand for input name on a command
// line: its name upper-cased for a string, else the type's zero value as
// an HCL literal (0, false, [], {a = ""}).
func placeholder(name string, t cty.Type) string {
	if t == cty.String || t == cty.DynamicPseudoType {
		return strings.ToUpper(name)
	}
	return strings.TrimSpace(string(hclwrite.TokensForValue(zeroValue(t)).Bytes()))
}

// zeroValue is the zero value of type t: an object has each of its
// attributes' zero values.
func zeroValue(t cty.Type) cty.Value {
	switch {
	case t == cty.String:
		return cty.StringVal("")
	case t == cty.Number:
		return cty.Zero
	case t == cty.Bool:
		return cty.False
	case t.IsListType() || t.IsSetType() || t.IsTupleType():
		return cty.EmptyTupleVal
	case t.IsObjectType():
		attrs := map[string]cty.Value{}
		for n, at := range t.AttributeTypes() {
			if !t.AttributeOptional(n) {
				attrs[n] = zeroValue(at)
			}
		}
		return cty.ObjectVal(attrs)
	}
	return cty.EmptyObjectVal // a map
}
