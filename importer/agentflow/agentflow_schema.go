package agentflow

import (
	"github.com/flowctl/flowctl/importer"
)

// schemaType is the HCL type of a JSON Schema: string, number (integer
// too), bool; an array's items make a list; an object's properties an
// object (those not required optional), its additionalProperties a map.
// What cannot be typed so (no type, unions, references, an object of
// anything) is any, with a warning.
func (a *agentflow) schemaType(s *importer.JV, w importer.Where) string {
	t, why := importer.JSONSchemaType(s)
	if why != "" {
		a.Warn(w, s, "Untyped schema", "the schema "+why+": its HCL type is any, checked only at run time.")
	}
	return t
}
