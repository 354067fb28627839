package lang

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// constValue evaluates an expression that may not refer to anything: the
// values of meta-arguments and of block-definition fields are fixed when the
// file is read.
func constValue(expr hcl.Expression) (cty.Value, hcl.Diagnostics) {
	if vars := expr.Variables(); len(vars) > 0 {
		return cty.DynamicVal, Error(vars[0].SourceRange(), "Variables not allowed",
			"This value must be a literal: references such as %s are not allowed here.", TraversalString(vars[0]))
	}
	v, diags := expr.Value(nil)
	if diags.HasErrors() {
		return cty.DynamicVal, diags
	}
	return v, nil
}

func constOf(attr *hcl.Attribute, ty cty.Type, what string) (cty.Value, hcl.Diagnostics) {
	v, diags := constValue(attr.Expr)
	if diags.HasErrors() {
		return v, diags
	}
	if v.IsNull() {
		return v, Error(attr.Expr.Range(), "Invalid "+attr.Name, "The %s must not be null.", what)
	}
	cv, err := convert.Convert(v, ty)
	if err != nil {
		return cty.DynamicVal, Error(attr.Expr.Range(), "Invalid "+attr.Name,
			"The %s must be %s: %s.", what, FriendlyTypeName(ty), err)
	}
	return cv, nil
}

func stringAttr(attr *hcl.Attribute) (string, hcl.Diagnostics) {
	v, diags := constOf(attr, cty.String, attr.Name+" argument")
	if diags.HasErrors() {
		return "", diags
	}
	return v.AsString(), nil
}

func boolAttr(attr *hcl.Attribute) (bool, hcl.Diagnostics) {
	v, diags := constOf(attr, cty.Bool, attr.Name+" argument")
	if diags.HasErrors() {
		return false, diags
	}
	return v.True(), nil
}

func intAttr(attr *hcl.Attribute, min int) (int, hcl.Diagnostics) {
	v, diags := constOf(attr, cty.Number, attr.Name+" argument")
	if diags.HasErrors() {
		return 0, diags
	}
	bf := v.AsBigFloat()
	i, acc := bf.Int64()
	if !bf.IsInt() || acc != 0 || i < int64(min) || i > 1<<31 {
		return 0, Error(attr.Expr.Range(), "Invalid "+attr.Name,
			"The %s must be a whole number of at least %d; got %s.", attr.Name, min, bf.Text('g', -1))
	}
	return int(i), nil
}

func numberAttr(attr *hcl.Attribute) (float64, hcl.Diagnostics) {
	v, diags := constOf(attr, cty.Number, attr.Name+" argument")
	if diags.HasErrors() {
		return 0, diags
	}
	f, _ := v.AsBigFloat().Float64()
	return f, nil
}

func stringListAttr(attr *hcl.Attribute) ([]string, hcl.Diagnostics) {
	v, diags := constOf(attr, cty.List(cty.String), attr.Name+" argument")
	if diags.HasErrors() {
		return nil, diags
	}
	var out []string
	for _, e := range v.AsValueSlice() {
		if e.IsNull() {
			return nil, Error(attr.Expr.Range(), "Invalid "+attr.Name, "The %s must not contain null.", attr.Name)
		}
		out = append(out, e.AsString())
	}
	return out, nil
}

// Duration is a duration literal with its source range.
type Duration struct {
	time.Duration
	Range hcl.Range
}

func durationAttr(attr *hcl.Attribute) (Duration, hcl.Diagnostics) {
	s, diags := stringAttr(attr)
	if diags.HasErrors() {
		return Duration{}, diags
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		reason := "it must be positive"
		if err != nil {
			reason = "it is not a duration"
		}
		return Duration{}, Error(attr.Expr.Range(), "Invalid duration",
			"The %s %q is not valid: %s. A duration is a number with a unit, such as \"500ms\", \"30s\" or \"2m\".", attr.Name, s, reason)
	}
	return Duration{Duration: d, Range: attr.Expr.Range()}, nil
}

// Article returns "a" or "an" for a word.
func Article(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}

// FriendlyTypeName names a type for messages: "a string", "of type list(string)".
func FriendlyTypeName(ty cty.Type) string {
	switch {
	case ty == cty.DynamicPseudoType:
		return "any value"
	case ty == cty.String:
		return "a string"
	case ty == cty.Number:
		return "a number"
	case ty == cty.Bool:
		return "a bool"
	}
	return fmt.Sprintf("of type %s", TypeString(ty))
}

type mark string

// Sensitive marks values derived from a secret or a sensitive input (docs/design.md, "Secrets").
const Sensitive = mark("sensitive")

// SensitiveText stands in for a sensitive value wherever values are shown.
const SensitiveText = "(sensitive)"

// IsSensitive reports whether v or anything inside it is sensitive, as
// cty's HasMarkDeep does.
func IsSensitive(v cty.Value) bool {
	return anyDeep(v, func(v cty.Value) bool { return v.HasMark(Sensitive) })
}

// SensitiveAndKnown reports, in one walk, what IsSensitive and
// IsWhollyKnown report of v.
func SensitiveAndKnown(v cty.Value) (sensitive, whollyKnown bool) {
	unknown := false
	anyDeep(v, func(v cty.Value) bool {
		sensitive = sensitive || v.HasMark(Sensitive)
		unknown = unknown || !v.IsKnown()
		return sensitive && unknown
	})
	return sensitive, !unknown
}

// ContainsMarked reports whether v or anything inside it has any mark, as
// cty's Value.ContainsMarked does.
func ContainsMarked(v cty.Value) bool {
	return anyDeep(v, func(v cty.Value) bool { return v.IsMarked() })
}

// IsWhollyKnown reports whether v and everything inside it is known, as
// cty's Value.IsWhollyKnown does, walking v as anyDeep does.
func IsWhollyKnown(v cty.Value) bool {
	return !anyDeep(v, func(v cty.Value) bool { return !v.IsKnown() })
}

// anyDeep reports whether has holds for v or a value inside it. It walks v
// itself rather than through cty.Walk, which builds a path and a key value
// for every element and sorts every object's attribute names: a for_each
// run asks this of every instance's inputs and outputs, and of its whole
// list of items.
func anyDeep(v cty.Value, has func(cty.Value) bool) bool {
	if has(v) {
		return true
	}
	if !v.IsKnown() || v.IsNull() {
		return false
	}
	v, _ = v.Unmark()
	ty := v.Type()
	switch {
	case ty.IsObjectType():
		for name := range ty.AttributeTypes() {
			if anyDeep(v.GetAttr(name), has) {
				return true
			}
		}
	case v.CanIterateElements(): // a list, set, map or tuple
		for it := v.ElementIterator(); it.Next(); {
			if _, e := it.Element(); anyDeep(e, has) {
				return true
			}
		}
	}
	return false
}

// attrMaps recycles the maps objects are built from: cty.ObjectVal copies
// the map it is given, which is scratch once it returns.
var attrMaps = sync.Pool{New: func() any { return map[string]cty.Value{} }}

// NewAttrs returns an empty map to collect an object's attributes in, for
// ObjectOf.
func NewAttrs() map[string]cty.Value { return attrMaps.Get().(map[string]cty.Value) }

// ObjectOf returns the object of attrs, a map from NewAttrs, and takes the
// map back: attrs must not be used after.
func ObjectOf(attrs map[string]cty.Value) cty.Value {
	v := cty.ObjectVal(attrs)
	clear(attrs)
	attrMaps.Put(attrs)
	return v
}
