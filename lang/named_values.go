package lang

import (
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// Input is an `input "NAME"` block: a value given to the flow when it runs.
type Input struct {
	Name        string
	Type        TypeSpec
	Default     cty.Value // cty.NilVal when the input is required
	Description string
	Sensitive   bool
	NameRange   hcl.Range
	DeclRange   hcl.Range
}

// Required reports whether the input has no default.
func (in *Input) Required() bool { return in.Default == cty.NilVal }

var inputBlockSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "type"}, {Name: "default"}, {Name: "description"}, {Name: "sensitive"},
	},
}

func decodeInputBlock(b *hcl.Block) (*Input, hcl.Diagnostics) {
	in := &Input{Name: b.Labels[0], NameRange: b.LabelRanges[0], DeclRange: b.DefRange}
	attrs, diags := decodeTyped(b, "input", inputBlockSchema, &in.Type, &in.Default, &in.Description)
	if a, ok := attrs["sensitive"]; ok {
		var d hcl.Diagnostics
		in.Sensitive, d = boolAttr(a)
		diags = append(diags, d...)
	}
	return in, diags
}

// Secret is a `secret "NAME"` block: a value read from the environment.
type Secret struct {
	Name        string
	Env         string // the environment variable it is read from
	Description string
	NameRange   hcl.Range
	DeclRange   hcl.Range
}

var secretBlockSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "env"}, {Name: "description"}},
}

func decodeSecretBlock(b *hcl.Block) (*Secret, hcl.Diagnostics) {
	s := &Secret{Name: b.Labels[0], NameRange: b.LabelRanges[0], DeclRange: b.DefRange}
	diags := checkName("secret", s.Name, s.NameRange)
	s.Env = "FLOWCTL_SECRET_" + strings.ToUpper(s.Name)
	content, d := b.Body.Content(secretBlockSchema)
	diags = append(diags, d...)
	if a, ok := content.Attributes["env"]; ok {
		s.Env, d = stringAttr(a)
		diags = append(diags, d...)
		if !d.HasErrors() && s.Env == "" {
			diags = append(diags, Error(a.Expr.Range(), "Invalid env", "The environment variable name must not be empty.")...)
		}
	}
	if a, ok := content.Attributes["description"]; ok {
		s.Description, d = stringAttr(a)
		diags = append(diags, d...)
	}
	return s, diags
}

// Local is one attribute of a `locals` block.
type Local struct {
	Name      string
	Expr      hcl.Expression
	NameRange hcl.Range
	DeclRange hcl.Range
}

func decodeLocalsBlock(b *hcl.Block) ([]*Local, hcl.Diagnostics) {
	attrs, diags := b.Body.JustAttributes()
	var locals []*Local
	for _, a := range sortedAttributes(attrs) {
		diags = append(diags, checkName("local", a.Name, a.NameRange)...)
		locals = append(locals, &Local{Name: a.Name, Expr: a.Expr, NameRange: a.NameRange, DeclRange: a.Range})
	}
	return locals, diags
}

// Memory is a `memory "NAME"` block: a value kept across runs.
type Memory struct {
	Name        string
	Type        TypeSpec
	Default     cty.Value      // null of Type when not given
	Value       hcl.Expression // nil when the memory is only read
	Description string
	NameRange   hcl.Range
	DeclRange   hcl.Range
}

var memoryBlockSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "type"}, {Name: "default"}, {Name: "value"}, {Name: "description"},
	},
}

func decodeMemoryBlock(b *hcl.Block) (*Memory, hcl.Diagnostics) {
	m := &Memory{Name: b.Labels[0], NameRange: b.LabelRanges[0], DeclRange: b.DefRange}
	attrs, diags := decodeTyped(b, "memory", memoryBlockSchema, &m.Type, &m.Default, &m.Description)
	if m.Default == cty.NilVal {
		m.Default = cty.NullVal(m.Type.Type)
	}
	if a, ok := attrs["value"]; ok {
		m.Value = a.Expr
	}
	return m, diags
}

// Output is an `output "NAME"` block: a value the flow returns.
type Output struct {
	Name        string
	Value       hcl.Expression
	Description string
	Sensitive   bool
	NameRange   hcl.Range
	DeclRange   hcl.Range
}

var outputBlockSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "value", Required: true}, {Name: "description"}, {Name: "sensitive"},
	},
}

func decodeOutputBlock(b *hcl.Block) (*Output, hcl.Diagnostics) {
	o := &Output{Name: b.Labels[0], NameRange: b.LabelRanges[0], DeclRange: b.DefRange}
	diags := checkName("output", o.Name, o.NameRange)
	content, d := b.Body.Content(outputBlockSchema)
	diags = append(diags, d...)
	if a, ok := content.Attributes["value"]; ok {
		o.Value = a.Expr
	}
	if a, ok := content.Attributes["description"]; ok {
		o.Description, d = stringAttr(a)
		diags = append(diags, d...)
	}
	if a, ok := content.Attributes["sensitive"]; ok {
		o.Sensitive, d = boolAttr(a)
		diags = append(diags, d...)
		if d.HasErrors() {
			o.Sensitive = true // meant to say something: no error of its value for want of it
		}
	}
	return o, diags
}
