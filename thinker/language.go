package thinker

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// The parts of a flow beyond inputs, steps and outputs that a wire reply
// writes (docs/thinker.md, "What the thinker writes"): secrets, memory,
// schedules, and a step's retry, timeout, on_error and tools. Each is
// written as the block or attribute the language has; expressions are
// parsed first, as in gen.go, and one that does not parse is left out
// and reported.

// secret sets the attributes of a secret block.
func (w *flowWriter) secret(b *hclwrite.Body, s wireSecret) {
	setOrRemoveString(b, "description", s.Description)
}

// memory sets the attributes of a memory block.
func (w *flowWriter) memory(b *hclwrite.Body, m wireMemory) {
	what := fmt.Sprintf("the memory %q", m.Name)
	if strings.TrimSpace(m.Type) != "" {
		_, toks, d := typeTokens(m.Type, what)
		w.diags = append(w.diags, d...)
		if !d.HasErrors() {
			b.SetAttributeRaw("type", toks)
		}
	} else {
		b.RemoveAttribute("type")
	}
	w.optionalExpr(b, "default", m.Default, "the default of "+what)
	w.optionalExpr(b, "value", m.Value, "the value of "+what)
	setOrRemoveString(b, "description", m.Description)
}

// schedule sets the attributes of a schedule block.
func (w *flowWriter) schedule(b *hclwrite.Body, s wireSchedule) {
	if strings.TrimSpace(s.Cron) == "" {
		w.diags = append(w.diags, problem("Missing cron", "The schedule %q has no cron; give five fields such as \"0 7 * * 1-5\".", s.Name)...)
	} else {
		b.SetAttributeValue("cron", cty.StringVal(s.Cron))
	}
	if s.Timezone != nil && strings.TrimSpace(*s.Timezone) != "" {
		b.SetAttributeValue("timezone", cty.StringVal(*s.Timezone))
	} else {
		b.RemoveAttribute("timezone")
	}
	w.optionalExpr(b, "inputs", s.Inputs, fmt.Sprintf("the inputs of schedule %q", s.Name))
}

// optionalExpr sets an attribute to an expression, or removes it when
// there is none.
func (w *flowWriter) optionalExpr(b *hclwrite.Body, name string, src *string, what string) {
	if src == nil || strings.TrimSpace(*src) == "" || strings.TrimSpace(*src) == "null" {
		b.RemoveAttribute(name)
		return
	}
	if toks := w.expr(*src, what); toks != nil {
		b.SetAttributeRaw(name, toks)
	}
}

func setOrRemoveString(b *hclwrite.Body, name, value string) {
	if value != "" {
		b.SetAttributeValue(name, cty.StringVal(value))
	} else {
		b.RemoveAttribute(name)
	}
}

// stepMeta writes a step's timeout, on_error, tools and retry; with old (a
// step of the flow being edited), only those that differ.
func (w *flowWriter) stepMeta(b *hclwrite.Body, s wireStep, old *wireStep) {
	if old == nil || !sameStringPtr(old.Timeout, s.Timeout) {
		if s.Timeout != nil && strings.TrimSpace(*s.Timeout) != "" {
			b.SetAttributeValue("timeout", cty.StringVal(strings.TrimSpace(*s.Timeout)))
		} else {
			b.RemoveAttribute("timeout")
		}
	}
	if old == nil || onError(old.OnError) != onError(s.OnError) {
		switch v := onError(s.OnError); v {
		case "fail":
			b.RemoveAttribute("on_error")
		case "continue":
			b.SetAttributeValue("on_error", cty.StringVal(v))
		default:
			w.diags = append(w.diags, problem("Invalid on_error", "Step %q has on_error %q; it is \"fail\", \"continue\" or null.", s.Name, v)...)
		}
	}
	if old == nil || !slices.Equal(old.Tools, s.Tools) {
		if toks := w.tools(s); toks != nil {
			b.SetAttributeRaw("tools", toks)
		} else {
			b.RemoveAttribute("tools")
		}
	}
	if old == nil || !reflect.DeepEqual(old.Retry, s.Retry) {
		w.retry(b, s)
	}
}

// onError is a step's on_error, "fail" when not given.
func onError(v *string) string {
	if v == nil || strings.TrimSpace(*v) == "" {
		return "fail"
	}
	return strings.TrimSpace(*v)
}

func sameStringPtr(a, b *string) bool {
	switch {
	case a == nil || b == nil:
		return (a == nil || *a == "") && (b == nil || *b == "")
	}
	return strings.TrimSpace(*a) == strings.TrimSpace(*b)
}

// tools writes an llm step's tools as a list of references.
func (w *flowWriter) tools(s wireStep) hclwrite.Tokens {
	var elems []hclwrite.Tokens
	for _, t := range s.Tools {
		tr, d := hclsyntax.ParseTraversalAbs([]byte(strings.TrimSpace(t)), "tools", hcl.InitialPos)
		root := ""
		if !d.HasErrors() {
			root = tr.RootName()
		}
		ok := !d.HasErrors() && ((len(tr) == 2 && (root == lang.ToolFlow || root == lang.ToolBlock)) || (len(tr) == 3 && root == lang.ToolMCP))
		if !ok {
			w.diags = append(w.diags, problem("Invalid tool", "Step %q has the tool %q; a tool is flow.NAME or block.NAME.", s.Name, t)...)
			continue
		}
		elems = append(elems, hclwrite.TokensForTraversal(tr))
	}
	if len(elems) == 0 {
		return nil
	}
	return hclwrite.TokensForTuple(elems)
}

// retry writes a step's retry block: attempts and backoff, keeping any
// other argument (max_backoff) of a block the flow has.
func (w *flowWriter) retry(b *hclwrite.Body, s wireStep) {
	blk := b.FirstMatchingBlock("retry", nil)
	if s.Retry == nil {
		if blk != nil {
			b.RemoveBlock(blk)
		}
		return
	}
	n := s.Retry.Attempts
	if n < 1 || n != math.Trunc(n) || n > 100 {
		w.diags = append(w.diags, problem("Invalid retry", "Step %q retries %s times; attempts is a whole number from 1 to 100 (the first try included).",
			s.Name, strconv.FormatFloat(n, 'f', -1, 64))...)
		return
	}
	if blk == nil {
		blk = b.AppendNewBlock("retry", nil)
	}
	blk.Body().SetAttributeValue("attempts", cty.NumberIntVal(int64(n)))
	if s.Retry.Backoff != nil && strings.TrimSpace(*s.Retry.Backoff) != "" {
		blk.Body().SetAttributeValue("backoff", cty.StringVal(strings.TrimSpace(*s.Retry.Backoff)))
	} else {
		blk.Body().RemoveAttribute("backoff")
	}
}

// readStepMeta reads what a wire reply says of a step's meta-arguments
// from a step block of a flow file (think --edit).
func readStepMeta(s *wireStep, body *hclsyntax.Body, literal func(hclsyntax.Attributes, string) string) {
	attrs := body.Attributes
	if v := literal(attrs, "timeout"); v != "" {
		s.Timeout = &v
	}
	if v := literal(attrs, "on_error"); v != "" {
		s.OnError = &v
	}
	if a, ok := attrs["tools"]; ok {
		for _, tr := range a.Expr.Variables() {
			s.Tools = append(s.Tools, traversalText(tr))
		}
	}
	for _, blk := range body.Blocks {
		if blk.Type != "retry" {
			continue
		}
		r := &wireRetry{Attempts: 1}
		if a, ok := blk.Body.Attributes["attempts"]; ok {
			if v, d := a.Expr.Value(nil); !d.HasErrors() && v.Type() == cty.Number && v.IsKnown() && !v.IsNull() {
				r.Attempts, _ = v.AsBigFloat().Float64()
			}
		}
		if v := literal(blk.Body.Attributes, "backoff"); v != "" {
			r.Backoff = &v
		}
		s.Retry = r
	}
}

// stepMetaChanges names the meta-arguments that differ between two
// versions of a step.
func stepMetaChanges(o, s wireStep) []string {
	var what []string
	if !reflect.DeepEqual(o.Retry, s.Retry) {
		what = append(what, "retry")
	}
	if !sameStringPtr(o.Timeout, s.Timeout) {
		what = append(what, "timeout")
	}
	if onError(o.OnError) != onError(s.OnError) {
		what = append(what, "on_error")
	}
	if !slices.Equal(o.Tools, s.Tools) {
		what = append(what, "tools")
	}
	return what
}

// traversalText is a reference as written: root.name.name.
func traversalText(tr hcl.Traversal) string {
	parts := []string{tr.RootName()}
	for _, t := range tr[1:] {
		if a, ok := t.(hcl.TraverseAttr); ok {
			parts = append(parts, a.Name)
		}
	}
	return strings.Join(parts, ".")
}

// keepUnsaid fills in what a reply to think --edit leaves out, as the
// edited flow (old) has it: its secrets, memory and schedules when the
// reply has no such field, and a step's retry, timeout, on_error and
// tools when the reply's step does not mention them. A field set to null
// or [] removes them.
func keepUnsaid(old, r *wireReply) {
	if !r.given["secrets"] {
		r.Secrets = old.Secrets
	}
	if !r.given["memory"] {
		r.Memory = old.Memory
	}
	if !r.given["schedules"] {
		r.Schedules = old.Schedules
	}
	steps := byName(old.Steps, func(s wireStep) string { return s.Name })
	for i := range r.Steps {
		s := &r.Steps[i]
		o, ok := steps[s.Name]
		if !ok {
			continue
		}
		if !s.given["retry"] {
			s.Retry = o.Retry
		}
		if !s.given["timeout"] {
			s.Timeout = o.Timeout
		}
		if !s.given["on_error"] {
			s.OnError = o.OnError
		}
		if !s.given["tools"] {
			s.Tools = o.Tools
		}
	}
}
