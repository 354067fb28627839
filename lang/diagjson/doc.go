// Package diagjson renders diagnostics as the versioned JSON object of
// `flowctl validate --json` (§5), the shape of Terraform's validate -json.
//
// The CLI prints it; the thinker sends it to the model when it asks for a
// repair, so that the model reads exactly what a user's tools would.
package diagjson
