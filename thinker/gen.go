package thinker

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/lang/jsonval"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// The generators turn replies into HCL files with hclwrite. Every
// expression and type the model wrote is parsed first; one that does not
// parse is left out of the file and reported as a diagnostic without a
// range (it has no place in the file), worded for the model.

// exprTokens parses src as one HCL expression and returns its tokens.
func exprTokens(src string, what string) (hclwrite.Tokens, hcl.Diagnostics) {
	if strings.TrimSpace(src) == "" {
		return nil, problem("Missing expression", "%s is empty; give an HCL expression.", capitalizeFirst(what))
	}
	if _, diags := hclsyntax.ParseExpression([]byte(src), what, hcl.InitialPos); diags.HasErrors() {
		detail := fmt.Sprintf("%s, %s, is not a valid HCL expression: %s.", capitalizeFirst(what), strconv.Quote(src), lang.ErrorSentence(diags, false))
		if !strings.HasPrefix(strings.TrimSpace(src), `"`) {
			detail += " Text is written in quotes, as in " + strconv.Quote(strconv.Quote(src)) + "."
		}
		return nil, problem("Invalid expression", "%s", detail)
	}
	return lexTokens(src, what)
}

// typeTokens parses src as an HCL type expression and returns its tokens.
func typeTokens(src string, what string) (cty.Type, hclwrite.Tokens, hcl.Diagnostics) {
	if strings.TrimSpace(src) == "" {
		return cty.DynamicPseudoType, nil, problem("Missing type", "%s has no type; give an HCL type expression such as string or list(string).", capitalizeFirst(what))
	}
	ty, diags := lang.ParseType(src, what)
	if diags.HasErrors() {
		return cty.DynamicPseudoType, nil, problem("Invalid type expression",
			"%s has the type %s, which is not an HCL type expression: %s. Types are string, number, bool, any, list(T), set(T), map(T), object({ name = T }).",
			capitalizeFirst(what), strconv.Quote(src), lang.ErrorSentence(diags, false))
	}
	toks, d := lexTokens(src, what)
	return ty, toks, d
}

// lexTokens returns the hclwrite tokens of an expression that parses: the
// expression of an attribute whose value it is (what names it).
func lexTokens(src, what string) (hclwrite.Tokens, hcl.Diagnostics) {
	f, diags := hclwrite.ParseConfig([]byte("v = "+src+"\n"), "expression", hcl.InitialPos)
	if diags.HasErrors() || f.Body().GetAttribute("v") == nil || len(f.Body().Attributes()) != 1 {
		return nil, problem("Invalid expression", "%s, %s, cannot be written on one line as a value: write one expression, without newlines outside strings.",
			capitalizeFirst(what), strconv.Quote(src))
	}
	return f.Body().GetAttribute("v").Expr().BuildTokens(nil), nil
}

// valueTokens converts a JSON value to HCL tokens.
func valueTokens(raw json.RawMessage, what string) (cty.Value, hclwrite.Tokens, hcl.Diagnostics) {
	v, err := jsonval.Decode(raw)
	if err == nil {
		return v, hclwrite.TokensForValue(v), nil
	}
	return cty.NilVal, nil, problem("Invalid value", "%s is not a JSON value: %s.", capitalizeFirst(what), err)
}

// heredocTokens writes text as an indented heredoc (<<-MARKER), whose
// indentation HCL strips when it reads the file. With literal set, the
// text is not a template: ${ and %{ are escaped. Lines of only spaces are
// written empty.
func heredocTokens(text, marker string, literal bool, indent int) hclwrite.Tokens {
	if literal {
		text = strings.ReplaceAll(text, "${", "$${")
		text = strings.ReplaceAll(text, "%{", "%%{")
	}
	text = strings.TrimRight(text, "\n")
	lines := strings.Split(text, "\n")
	marker = heredocMarker(lines, marker)
	pad := strings.Repeat(" ", indent+2)
	var b strings.Builder
	for _, l := range lines {
		l = strings.TrimRight(l, "\r")
		if strings.TrimSpace(l) != "" {
			b.WriteString(pad)
			b.WriteString(l)
		}
		b.WriteByte('\n')
	}
	b.WriteString(strings.Repeat(" ", indent))
	return hclwrite.Tokens{
		{Type: hclsyntax.TokenOHeredoc, Bytes: []byte("<<-" + marker + "\n")},
		{Type: hclsyntax.TokenStringLit, Bytes: []byte(b.String())},
		{Type: hclsyntax.TokenCHeredoc, Bytes: []byte(marker)},
	}
}

// heredocMarker is marker, or marker with a number when a line of the
// text would end the heredoc early.
func heredocMarker(lines []string, marker string) string {
	taken := map[string]bool{}
	for _, l := range lines {
		taken[strings.TrimSpace(l)] = true
	}
	m := marker
	for n := 2; taken[m]; n++ {
		m = fmt.Sprintf("%s_%d", marker, n)
	}
	return m
}

// renderBlock makes the block file of a create_block reply, for a block
// named name.
func renderBlock(name string, r *createReply) ([]byte, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	f := hclwrite.NewEmptyFile()
	blk := f.Body().AppendNewBlock("block", []string{name})
	body := blk.Body()
	if r.Description != "" {
		body.SetAttributeValue("description", cty.StringVal(r.Description))
	}
	body.SetAttributeValue("runtime", cty.StringVal(r.Runtime))
	if len(r.Requirements) > 0 {
		if r.Runtime != lang.RuntimePython {
			diags = append(diags, problem("Requirements on a block that is not python", "Only a python block has requirements; a %s block has none: give requirements [].", r.Runtime)...)
		} else {
			vals := make([]cty.Value, len(r.Requirements))
			for i, q := range r.Requirements {
				vals[i] = cty.StringVal(q)
			}
			body.SetAttributeValue("requirements", cty.ListVal(vals))
		}
	}
	for _, group := range []struct {
		kind   string
		fields []FieldSpec
	}{{"input", r.Inputs}, {"output", r.Outputs}} {
		for _, fs := range group.fields {
			fb := body.AppendNewBlock(group.kind, []string{fs.Name})
			_, toks, d := typeTokens(fs.Type, fmt.Sprintf("the %s %q", group.kind, fs.Name))
			diags = append(diags, d...)
			if !d.HasErrors() {
				fb.Body().SetAttributeRaw("type", toks)
			}
			if fs.Description != "" {
				fb.Body().SetAttributeValue("description", cty.StringVal(fs.Description))
			}
		}
	}
	switch r.Runtime {
	case lang.RuntimeGo, lang.RuntimeJS, lang.RuntimePython:
		if r.Source == nil || strings.TrimSpace(*r.Source) == "" {
			diags = append(diags, problem("Missing source", "A block with runtime %q needs its code in source.", r.Runtime)...)
			break
		}
		body.SetAttributeRaw("source", heredocTokens(*r.Source, strings.ToUpper(r.Runtime), true, 2))
	case lang.RuntimeLLM:
		if r.Prompt == nil || strings.TrimSpace(*r.Prompt) == "" {
			diags = append(diags, problem("Missing prompt", "A block with runtime \"llm\" needs a prompt: a template over its inputs, such as \"Summarize: ${input.text}\".")...)
			break
		}
		toks, d := promptTokens(*r.Prompt)
		diags = append(diags, d...)
		if !d.HasErrors() {
			body.SetAttributeRaw("prompt", toks)
		}
	default:
		diags = append(diags, problem("Unknown runtime", "The runtime %q is not known; a block's runtime is \"go\", \"js\", \"python\" or \"llm\".", r.Runtime)...)
	}
	ex := body.AppendNewBlock("example", nil).Body()
	for _, part := range []struct {
		name string
		raw  json.RawMessage
	}{{"input", r.Example.Input}, {"output", r.Example.Output}} {
		v, toks, d := valueTokens(part.raw, "the example's "+part.name)
		if !d.HasErrors() && !(v.Type().IsObjectType() && !v.IsNull()) {
			d = problem("Invalid example "+part.name, "The example's %s must be an object of field values, such as {\"text\": \"a b\"}.", part.name)
		}
		diags = append(diags, d...)
		if !d.HasErrors() {
			ex.SetAttributeRaw(part.name, toks)
		}
	}
	return hclwrite.Format(f.Bytes()), diags
}

// promptTokens writes an llm block's prompt template: a heredoc when it
// has lines or interpolations, else a quoted string.
func promptTokens(prompt string) (hclwrite.Tokens, hcl.Diagnostics) {
	if _, diags := hclsyntax.ParseTemplate([]byte(prompt), "prompt", hcl.InitialPos); diags.HasErrors() {
		return nil, problem("Invalid prompt template", "The prompt is not a valid HCL template: %s. Interpolate inputs as ${input.NAME}; write $${ for a literal ${.", lang.ErrorSentence(diags, false))
	}
	if !strings.Contains(prompt, "\n") && !strings.Contains(prompt, "${") && !strings.Contains(prompt, "%{") {
		return hclwrite.TokensForValue(cty.StringVal(prompt)), nil
	}
	return heredocTokens(prompt, "PROMPT", false, 2), nil
}

// renderFlow makes the flow file of a wire or repair reply. Blocks are
// the registry's, to order each step's arguments as its block declares
// its inputs. Templates written for references are fixed where the
// reference is clear (fixes says which) and reported where not.
func renderFlow(r *wireReply, reg *blocks.Registry) (src []byte, fixes []string, diags hcl.Diagnostics) {
	w := newFlowWriter(r, reg)
	f := hclwrite.NewEmptyFile()
	root := f.Body()
	fb := root.AppendNewBlock("flow", []string{r.Name}).Body()
	if r.Description != "" {
		fb.SetAttributeValue("description", cty.StringVal(r.Description))
	}
	for _, in := range r.Inputs {
		root.AppendNewline()
		w.input(root.AppendNewBlock("input", []string{in.Name}).Body(), in)
	}
	for _, sec := range r.Secrets {
		root.AppendNewline()
		w.secret(root.AppendNewBlock("secret", []string{sec.Name}).Body(), sec)
	}
	for _, m := range r.Memory {
		root.AppendNewline()
		w.memory(root.AppendNewBlock("memory", []string{m.Name}).Body(), m)
	}
	for _, s := range r.Steps {
		root.AppendNewline()
		w.step(root.AppendNewBlock("step", []string{s.Name}).Body(), s, nil)
	}
	for _, o := range r.Outputs {
		root.AppendNewline()
		w.output(root.AppendNewBlock("output", []string{o.Name}).Body(), o)
	}
	for _, sc := range r.Schedules {
		root.AppendNewline()
		w.schedule(root.AppendNewBlock("schedule", []string{sc.Name}).Body(), sc)
	}
	return hclwrite.Format(f.Bytes()), w.fixes, w.diags
}

// flowWriter writes the parts of a wire reply into hclwrite bodies,
// gathering the fixes of templates and the problems.
type flowWriter struct {
	reg   *blocks.Registry
	refs  *refResolver
	fixes []string
	diags hcl.Diagnostics
}

func newFlowWriter(r *wireReply, reg *blocks.Registry) *flowWriter {
	return &flowWriter{reg: reg, refs: newRefResolver(r, reg)}
}

// expr parses an expression the model wrote, first fixing or reporting a
// template written for a reference; nil when it has problems.
func (w *flowWriter) expr(src, what string) hclwrite.Tokens {
	src, fix, d := w.refs.fixTemplate(src, what)
	if fix != "" {
		w.fixes = append(w.fixes, fix)
	}
	if !d.HasErrors() {
		var toks hclwrite.Tokens
		toks, d = exprTokens(src, what)
		if !d.HasErrors() {
			return toks
		}
	}
	w.diags = append(w.diags, d...)
	return nil
}

// input sets the attributes of an input block.
func (w *flowWriter) input(b *hclwrite.Body, in wireInput) {
	if strings.TrimSpace(in.Type) != "" {
		_, toks, d := typeTokens(in.Type, fmt.Sprintf("the input %q", in.Name))
		w.diags = append(w.diags, d...)
		if !d.HasErrors() {
			b.SetAttributeRaw("type", toks)
		}
	} else {
		b.RemoveAttribute("type")
	}
	if in.Description != "" {
		b.SetAttributeValue("description", cty.StringVal(in.Description))
	} else {
		b.RemoveAttribute("description")
	}
	if len(in.Default) > 0 && string(in.Default) != "null" {
		_, toks, d := valueTokens(in.Default, fmt.Sprintf("the default of input %q", in.Name))
		w.diags = append(w.diags, d...)
		if !d.HasErrors() {
			b.SetAttributeRaw("default", toks)
		}
	} else {
		b.RemoveAttribute("default")
	}
}

// step sets the attributes of a step block: its use, depends_on and
// arguments. With old (a step of the flow being edited), only what
// differs from old is written, and the arguments old has and s lacks are
// removed, so that everything else in the block stays as it was.
func (w *flowWriter) step(b *hclwrite.Body, s wireStep, old *wireStep) {
	if old == nil || old.Use != s.Use {
		b.SetAttributeValue("use", cty.StringVal(s.Use))
	}
	if old == nil || !slices.Equal(depNames(old.DependsOn), depNames(s.DependsOn)) {
		if deps := dependsOnTokens(s, &w.diags); deps != nil {
			b.SetAttributeRaw("depends_on", deps)
		} else {
			b.RemoveAttribute("depends_on")
		}
	}
	for _, name := range argOrder(s, w.reg.Lookup(s.Use)) {
		val := s.Args[name]
		if val == nil {
			if old != nil && old.Args[name] != nil {
				b.RemoveAttribute(name)
			}
			continue
		}
		if old != nil && old.Args[name] != nil && sameExpr(*old.Args[name], *val) {
			continue
		}
		if !hclsyntax.ValidIdentifier(name) {
			w.diags = append(w.diags, problem("Invalid argument name", "Step %q has an argument named %q, which is not an HCL identifier; arguments are named after the block's inputs.", s.Name, name)...)
			continue
		}
		if toks := w.expr(*val, fmt.Sprintf("the argument %q of step %q", name, s.Name)); toks != nil {
			b.SetAttributeRaw(name, toks)
		}
	}
	if old != nil {
		for name := range old.Args {
			if _, ok := s.Args[name]; !ok {
				b.RemoveAttribute(name)
			}
		}
	}
	w.stepMeta(b, s, old)
}

// output sets the value of an output block.
func (w *flowWriter) output(b *hclwrite.Body, o wireOutput) {
	if toks := w.expr(o.Value, fmt.Sprintf("the value of output %q", o.Name)); toks != nil {
		b.SetAttributeRaw("value", toks)
	}
}

// depNames are the step names of a depends_on list, without "step.".
func depNames(deps []string) []string {
	var out []string
	for _, d := range deps {
		out = append(out, strings.TrimPrefix(strings.TrimSpace(d), lang.RootStep+"."))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// sameExpr reports whether two expressions are the same once formatted.
func sameExpr(a, b string) bool {
	format := func(s string) string {
		return strings.TrimSpace(string(hclwrite.Format([]byte("v = " + strings.TrimSpace(s)))))
	}
	return format(a) == format(b)
}

// dependsOnTokens writes a step's depends_on as a list of step.NAME
// references, each once; names may be given with or without "step.".
func dependsOnTokens(s wireStep, diags *hcl.Diagnostics) hclwrite.Tokens {
	var elems []hclwrite.Tokens
	seen := map[string]bool{}
	for _, d := range s.DependsOn {
		name := strings.TrimPrefix(strings.TrimSpace(d), lang.RootStep+".")
		if !hclsyntax.ValidIdentifier(name) {
			*diags = append(*diags, problem("Invalid depends_on", "Step %q depends on %q, which is not a step name.", s.Name, d)...)
			continue
		}
		if seen[name] {
			continue
		}
		seen[name] = true
		elems = append(elems, hclwrite.TokensForTraversal(hcl.Traversal{
			hcl.TraverseRoot{Name: lang.RootStep}, hcl.TraverseAttr{Name: name},
		}))
	}
	if len(elems) == 0 {
		return nil
	}
	return hclwrite.TokensForTuple(elems)
}

// argOrder is the order a step's arguments are written in: meta-arguments
// first, then the block's inputs as it declares them, then any others by
// name.
func argOrder(s wireStep, b *blocks.Block) []string {
	seen := map[string]bool{}
	var out []string
	add := func(name string) {
		if _, ok := s.Args[name]; ok && !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	for _, m := range stepMetaArgs {
		add(m)
	}
	if b != nil {
		for _, in := range b.Inputs {
			add(in.Name)
		}
	}
	for _, name := range lang.SortedKeys(s.Args) {
		add(name)
	}
	return out
}

// problem is an error diagnostic without a range.
func problem(summary, detail string, args ...any) hcl.Diagnostics {
	return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(detail, args...)}}
}

func capitalizeFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
