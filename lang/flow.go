package lang

import "github.com/hashicorp/hcl/v2"

// Flow is the `flow "NAME"` block that names a flow file.
type Flow struct {
	Name        string
	Description string
	Version     string
	// Timeout bounds a whole run: after it the running steps are
	// cancelled and the run fails. Nil for none.
	Timeout *Duration
	// Hidden: expose = false, the flow is not offered as a tool
	// (flowctl mcp, flowctl tools).
	Hidden    bool
	NameRange hcl.Range
	DeclRange hcl.Range
}

var flowBlockSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "description"}, {Name: "version"}, {Name: "timeout"}, {Name: "expose"}},
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
	if a, ok := content.Attributes["expose"]; ok {
		expose, d := boolAttr(a)
		diags = append(diags, d...)
		fl.Hidden = !d.HasErrors() && !expose
	}
	if a, ok := content.Attributes["timeout"]; ok {
		t, d := durationAttr(a)
		diags = append(diags, d...)
		if !d.HasErrors() {
			fl.Timeout = &t
		}
	}
	return fl, diags
}
