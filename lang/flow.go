package lang

import "github.com/hashicorp/hcl/v2"

// Flow is the `flow "NAME"` block that names a flow file.
type Flow struct {
	Name        string
	Description string
	Version     string
	NameRange   hcl.Range
	DeclRange   hcl.Range
}

var flowBlockSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "description"}, {Name: "version"}},
}

func decodeFlowBlock(b *hcl.Block) (*Flow, hcl.Diagnostics) {
	fl := &Flow{Name: b.Labels[0], NameRange: b.LabelRanges[0], DeclRange: b.DefRange}
	diags := checkName("flow", fl.Name, fl.NameRange)
	content, d := b.Body.Content(flowBlockSchema)
	diags = append(diags, d...)
	if a, ok := content.Attributes["description"]; ok {
		fl.Description, d = stringAttr(a)
		diags = append(diags, d...)
	}
	if a, ok := content.Attributes["version"]; ok {
		fl.Version, d = stringAttr(a)
		diags = append(diags, d...)
	}
	return fl, diags
}
