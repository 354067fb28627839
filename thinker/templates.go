package thinker

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// Models write references as the templates of other tools: "{{fetch.body}}"
// (Mustache, Jinja) or an unquoted ${step.fetch.body}. HCL fills in
// neither: quoted, {{…}} is literal text, and unquoted, neither parses.

var (
	// wholeTemplate is an argument that is one template and nothing
	// else, quoted or not: {{ X }} or ${ X }.
	wholeTemplate = regexp.MustCompile(`^"?\s*(?:\{\{\s*([^{}]+?)\s*\}\}|\$\{\s*([^{}]+?)\s*\})\s*"?$`)
	// mustache is a {{ X }} inside quoted text.
	mustache = regexp.MustCompile(`\{\{\s*([^{}]+?)\s*\}\}`)
)

// refResolver finds what a model meant by a reference in a reply: step.N.F
// or input.N as written, or the same without step. or input.
type refResolver struct {
	steps  map[string]*blocks.Block // by step name; nil block when unknown
	inputs map[string]bool
	// others are the secrets and memories, by root and name.
	others map[string]map[string]bool
}

func newRefResolver(r *wireReply, reg *blocks.Registry) *refResolver {
	rr := &refResolver{steps: map[string]*blocks.Block{}, inputs: map[string]bool{},
		others: map[string]map[string]bool{lang.RootSecret: {}, lang.RootMemory: {}}}
	for _, s := range r.Steps {
		rr.steps[s.Name] = reg.Lookup(s.Use)
	}
	for _, in := range r.Inputs {
		rr.inputs[in.Name] = true
	}
	for _, s := range r.Secrets {
		rr.others[lang.RootSecret][s.Name] = true
	}
	for _, m := range r.Memory {
		rr.others[lang.RootMemory][m.Name] = true
	}
	return rr
}

// resolve returns the reference text names, with its root, and whether it
// names an existing step output or input; when not, the reference it
// most likely means.
func (rr *refResolver) resolve(text string) (string, bool) {
	tr, diags := hclsyntax.ParseTraversalAbs([]byte(text), "", hcl.InitialPos)
	if diags.HasErrors() || len(tr) == 0 {
		return text, false
	}
	root := tr.RootName()
	if names, ok := rr.others[root]; ok {
		name := ""
		if len(tr) > 1 {
			if a, ok := tr[1].(hcl.TraverseAttr); ok {
				name = a.Name
			}
		}
		return text, names[name]
	}
	switch {
	case root == lang.RootStep || root == lang.RootInput:
	case rr.inputs[root] && rr.steps[root] == nil:
		text, tr = lang.RootInput+"."+text, append(hcl.Traversal{hcl.TraverseRoot{Name: lang.RootInput}}, relative(tr)...)
	default:
		text, tr = lang.RootStep+"."+text, append(hcl.Traversal{hcl.TraverseRoot{Name: lang.RootStep}}, relative(tr)...)
	}
	attr := func(i int) string {
		if i < len(tr) {
			if a, ok := tr[i].(hcl.TraverseAttr); ok {
				return a.Name
			}
		}
		return ""
	}
	if tr.RootName() == lang.RootInput {
		return text, rr.inputs[attr(1)] && len(tr) == 2
	}
	b, ok := rr.steps[attr(1)]
	if !ok || b == nil || len(tr) < 3 {
		return text, false
	}
	return text, b.Output(attr(2)) != nil || b.Runtime == lang.RuntimeLLM || (b.Builtin() && b.Name == "llm")
}

// relative is a traversal's steps with its root as the first attribute.
func relative(tr hcl.Traversal) hcl.Traversal {
	out := hcl.Traversal{hcl.TraverseAttr{Name: tr.RootName()}}
	return append(out, tr[1:]...)
}

// fixTemplate looks at an argument or output value as the model wrote it.
// A whole template that names an existing step output or input is
// rewritten as the reference, which is returned with a note of the fix;
// any other template is a problem saying what to write instead.
func (rr *refResolver) fixTemplate(src, what string) (string, string, hcl.Diagnostics) {
	trimmed := strings.TrimSpace(src)
	if m := wholeTemplate.FindStringSubmatch(trimmed); m != nil {
		quoted := strings.HasPrefix(trimmed, `"`) && strings.HasSuffix(trimmed, `"`)
		inner := m[1] + m[2]
		if m[2] != "" && quoted {
			return src, "", nil // "${x}" is HCL's own template, and works
		}
		ref, ok := rr.resolve(inner)
		if ok {
			return ref, fmt.Sprintf("%s: %s rewritten as the reference %s", what, trimmed, ref), nil
		}
		return src, "", problem("Template instead of a reference",
			"%s is %s, which HCL does not fill in: write the reference %s (no quotes, no braces).",
			capitalizeFirst(what), strconv.Quote(trimmed), ref)
	}
	if strings.HasPrefix(trimmed, `"`) {
		if m := mustache.FindStringSubmatch(trimmed); m != nil {
			ref, _ := rr.resolve(m[1])
			return src, "", problem("Template instead of a reference",
				"%s is the text %s, whose %s HCL leaves as it is: write ${%s} inside the quotes.",
				capitalizeFirst(what), trimmed, m[0], ref)
		}
	}
	return src, "", nil
}
