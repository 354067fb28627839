// Package diagjson renders diagnostics as the versioned JSON object of
// `flowctl validate --json` (docs/design.md, "Commands"), the shape of Terraform's validate -json.
//
// The CLI prints it; the thinker sends it to the model when it asks for a
// repair, so that the model reads exactly what a user's tools would.
package diagjson
