package lang

import (
	"github.com/zclconf/go-cty/cty"
	"math/big"
	"time"

	"github.com/hashicorp/hcl/v2"
)

// Limits are a flow file's `concurrency`, `rate_limit` and `debounce`
// blocks: per-key limits on the flow's runs, which every start that
// flowctl serve makes (its API, schedules, triggers) and every run apply
// or an MCP call starts goes through. A flow has at most one of each:
// one key per kind, as Windmill's and Hatchet's concurrency keys are;
// two dimensions are one key made of both (key = "${input.a}/${input.b}").
type Limits struct {
	Concurrency *Concurrency
	RateLimit   *RateLimit
	Debounce    *Debounce
}

// Empty reports whether no limit is declared.
func (l Limits) Empty() bool {
	return l.Concurrency == nil && l.RateLimit == nil && l.Debounce == nil
}

// Concurrency is a `concurrency` block: at most Limit runs with the same
// key run at once; the others queue, started in priority then arrival
// order as places free.
type Concurrency struct {
	Key       hcl.Expression
	Limit     int
	DeclRange hcl.Range
}

// RateLimit is a `rate_limit` block: at most Limit runs with the same key
// start in any Period; the others wait for their turn.
type RateLimit struct {
	Key       hcl.Expression
	Limit     int
	Period    time.Duration
	DeclRange hcl.Range
}

// Debounce is a `debounce` block: starts with the same key less than
// Period apart make one run, with the last start's inputs, which starts
// Period after the last start.
type Debounce struct {
	Key       hcl.Expression
	Period    time.Duration
	DeclRange hcl.Range
}

// LimitBlocks are the limit blocks' types, in the docs' order.
var LimitBlocks = []string{"concurrency", "rate_limit", "debounce"}

var (
	concurrencySchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
		{Name: "key", Required: true}, {Name: "limit", Required: true}}}
	rateLimitSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
		{Name: "key", Required: true}, {Name: "limit", Required: true}, {Name: "period", Required: true}}}
	debounceSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
		{Name: "key", Required: true}, {Name: "period", Required: true}}}
)

// decodeLimitBlock decodes a limit block into l; a second block of a kind
// is an error at it.
func decodeLimitBlock(l *Limits, b *hcl.Block) hcl.Diagnostics {
	var first *hcl.Range
	var diags hcl.Diagnostics
	switch b.Type {
	case "concurrency":
		c := &Concurrency{DeclRange: b.DefRange}
		content, d := b.Body.Content(concurrencySchema)
		diags = d
		if a := content.Attributes["key"]; a != nil {
			c.Key = a.Expr
		}
		if a := content.Attributes["limit"]; a != nil {
			c.Limit, d = intAttr(a, 1)
			diags = append(diags, d...)
		}
		if l.Concurrency != nil {
			first = &l.Concurrency.DeclRange
		} else {
			l.Concurrency = c
		}
	case "rate_limit":
		r := &RateLimit{DeclRange: b.DefRange}
		content, d := b.Body.Content(rateLimitSchema)
		diags = d
		if a := content.Attributes["key"]; a != nil {
			r.Key = a.Expr
		}
		if a := content.Attributes["limit"]; a != nil {
			r.Limit, d = intAttr(a, 1)
			diags = append(diags, d...)
		}
		if a := content.Attributes["period"]; a != nil {
			p, d := durationAttr(a)
			diags = append(diags, d...)
			r.Period = p.Duration
		}
		if l.RateLimit != nil {
			first = &l.RateLimit.DeclRange
		} else {
			l.RateLimit = r
		}
	case "debounce":
		db := &Debounce{DeclRange: b.DefRange}
		content, d := b.Body.Content(debounceSchema)
		diags = d
		if a := content.Attributes["key"]; a != nil {
			db.Key = a.Expr
		}
		if a := content.Attributes["period"]; a != nil {
			p, d := durationAttr(a)
			diags = append(diags, d...)
			db.Period = p.Duration
		}
		if l.Debounce != nil {
			first = &l.Debounce.DeclRange
		} else {
			l.Debounce = db
		}
	}
	if first != nil {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Duplicate " + b.Type + " block",
			Detail: "A flow has at most one " + b.Type + " block, and one is declared at " + RangeString(*first) +
				" already. Runs limited on two values at once take one key made of both, such as key = \"${input.team}/${input.user}\".",
			Subject: b.DefRange.Ptr()})
	}
	return diags
}

// PriorityAttr decodes a `priority = N` attribute of a block that starts
// runs (a trigger): a whole number, higher first in the queue of a
// concurrency key, 0 by default; negative numbers come after the default.
func PriorityAttr(attr *hcl.Attribute) (int, hcl.Diagnostics) {
	v, diags := constOf(attr, cty.Number, "priority argument")
	if diags.HasErrors() {
		return 0, diags
	}
	bf := v.AsBigFloat()
	i, acc := bf.Int64()
	if !bf.IsInt() || acc != big.Exact || i < -1<<31 || i > 1<<31 {
		return 0, Error(attr.Expr.Range(), "Invalid priority",
			"The priority must be a whole number (higher runs first, 0 by default); got %s.", bf.Text('g', -1))
	}
	return int(i), nil
}
