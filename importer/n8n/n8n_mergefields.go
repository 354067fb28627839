package n8n

import (
	"fmt"
	"strings"

	"github.com/flowctl/flowctl/importer"
	"github.com/zclconf/go-cty/cty"
)

// mergeByFields is Merge v3's combine by matching fields: an n8n_code step
// (mode combineByFields) that runs n8n's code over the json of the items
// of its two inputs — the fields to match (Fields to Match, or the pairs
// of Advanced), Keep Matches, Keep Non-Matches, Keep Everything, Enrich
// Input 1 or 2, the output data from both or one input, all matches or the
// first, dot notation or not, deep or shallow merges preferring the last
// input or input 1. Fuzzy compare, suffixes on clashing fields and empty
// values left out are refused.
func (n *n8n) mergeByFields(node *n8nNode) []n8nItems {
	p := node.params
	if n.expressionParams(node) {
		return nil
	}
	var fields []importer.Expr
	pair := func(f1, f2 string, at *importer.JV) bool {
		if f1 == "" || f2 == "" {
			n.Problem(node.where, at, "Unsupported merge", "a pair of fields to match lacks a field: n8n fails on it too.")
			return false
		}
		fields = append(fields, importer.Object([]importer.Member{{Name: "field1", Value: importer.Str(f1)}, {Name: "field2", Value: importer.Str(f2)}}))
		return true
	}
	if p.Boolean(false, "advanced") {
		pairs := p.Items("mergeByFields", "values")
		if len(pairs) == 0 {
			pairs = []*importer.JV{{Kind: 'o', Obj: map[string]*importer.JV{}, Ptr: p.Ptr, Rng: p.Rng}}
		}
		for _, f := range pairs {
			if !pair(f.Text("field1"), f.Text("field2"), f) {
				return nil
			}
		}
	} else {
		at := p.Get("fieldsToMatchString")
		if at == nil {
			at = p
		}
		for _, f := range strings.Split(p.Text("fieldsToMatchString"), ",") {
			f = strings.TrimSpace(f)
			if !pair(f, f, at) {
				return nil
			}
		}
	}
	opts := p.Get("options")
	if opts != nil {
		if v := opts.Get("fuzzyCompare"); v != nil && !(v.Kind == 'b' && !v.Bool) {
			n.Problem(node.where, v, "Unsupported merge", "Fuzzy Compare (values of different types alike) is not converted.")
			return nil
		}
		if ch := opts.Get("clashHandling", "values"); ch != nil && (ch.Text("resolveClash") == "addSuffix" || ch.Boolean(false, "overrideEmpty")) {
			n.Problem(node.where, ch, "Unsupported merge", "combining with a suffix on clashing fields, or with empty values left out, is not converted.")
			return nil
		}
	}
	join := orDefault(p.Text("joinMode"), "keepMatches")
	switch join {
	case "keepMatches", "keepNonMatches", "keepEverything", "enrichInput1", "enrichInput2":
	default:
		n.Problem(node.where, p.Get("joinMode"), "Unsupported merge", fmt.Sprintf("the output type %q is none of n8n's.", join))
		return nil
	}
	lists, deps, _, ok := n.twoInputs(node)
	if !ok {
		return nil
	}
	var optsExpr importer.Expr = importer.Code("{}")
	if opts != nil {
		optsExpr = importer.JsonLiteral(opts)
	}
	n.code = true
	b, body := importer.NewStep(node.step, "n8n_code")
	body.SetAttributeValue("mode", cty.StringVal("combineByFields"))
	body.SetAttributeRaw("params", importer.Clone(importer.Object([]importer.Member{
		{Name: "inputs", Value: importer.Tuple(lists)},
		{Name: "fields", Value: importer.Tuple(fields)},
		{Name: "joinMode", Value: importer.Str(join)},
		{Name: "outputDataFrom", Value: importer.Str(orDefault(p.Text("outputDataFrom"), "both"))},
		{Name: "options", Value: optsExpr},
	})))
	body.SetAttributeValue("cache", cty.False)
	n.dependsOn(body, n8nItems{deps: deps})
	n.Step(n.nodeComment(node)+": the items of its inputs combined by matching fields ("+join+")", b)
	return []n8nItems{{e: importer.Ref("step", node.step, "items")}}
}
