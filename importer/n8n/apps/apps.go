// Package apps is the registry of app operations flowctl import writes
// beside a flow it imports from n8n: for each operation of an app node it
// converts (Gmail's Add Label, Google Sheets' Get Row(s)…), a flow that
// performs it on the service's REST API — typed inputs (the operation's
// parameters), the credential as a secret of the app (one for all its
// operations: secret "google_sheets", an access token), one or a few
// http steps, and an output "items", the items n8n's node gives for one
// call. The flows are the files under
// flows/, written byte for byte as NAME.flow.hcl beside the imported
// flow, whose step uses them as flow.NAME; a user reads and changes them
// there. Every import writes the same bytes, so a batch writes each once.
// A block several flows of an app share (Notion's Simplify, the sheet of
// a Google spreadsheet) is a file under blocks/, written as
// blocks/NAME.block.hcl beside them when a flow written uses it.
//
// A new operation is a file here and, in importer/n8n, the small
// converter that reads the node's parameters into the flow's inputs.
package apps

import (
	"embed"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

//go:embed flows/*.flow.hcl blocks/*.block.hcl
var files embed.FS

// Suffix ends the name of a registry flow's file.
const Suffix = ".flow.hcl"

// Flow is the source of the registry's flow name, nil when there is none.
func Flow(name string) []byte {
	b, err := files.ReadFile(path.Join("flows", name+Suffix))
	if err != nil {
		return nil
	}
	return b
}

// BlockSuffix ends the name of a registry block's file.
const BlockSuffix = ".block.hcl"

// Block is the source of the registry's block file name, nil when there
// is none.
func Block(name string) []byte {
	b, err := files.ReadFile(path.Join("blocks", name+BlockSuffix))
	if err != nil {
		return nil
	}
	return b
}

// Blocks are the registry's block files the flow name uses (a step's use
// naming one), in the order of its steps.
func Blocks(name string) []string {
	src := Flow(name)
	if src == nil {
		return nil
	}
	f, diags := hclsyntax.ParseConfig(src, name+Suffix, hcl.InitialPos)
	if diags.HasErrors() {
		return nil // TestRegistryFlows: every flow validates
	}
	var out []string
	for _, b := range f.Body.(*hclsyntax.Body).Blocks {
		a := b.Body.Attributes["use"]
		if b.Type != "step" || a == nil {
			continue
		}
		v, d := a.Expr.Value(nil)
		if d.HasErrors() || !v.Type().Equals(cty.String) {
			continue
		}
		if use := v.AsString(); Block(use) != nil && !slices.Contains(out, use) {
			out = append(out, use)
		}
	}
	return out
}

// Names are the registry's flows, sorted.
func Names() []string {
	entries, _ := fs.ReadDir(files, "flows")
	var out []string
	for _, e := range entries {
		out = append(out, strings.TrimSuffix(e.Name(), Suffix))
	}
	slices.Sort(out)
	return out
}

// Secret is a secret a registry flow declares.
type Secret struct {
	Name, Env, Description string
}

// Secrets are the secrets the registry's flow name declares, in order,
// each with the environment variable it is read from.
func Secrets(name string) []Secret {
	src := Flow(name)
	if src == nil {
		return nil
	}
	f, diags := hclsyntax.ParseConfig(src, name+Suffix, hcl.InitialPos)
	if diags.HasErrors() {
		return nil // TestRegistryFlows: every flow validates
	}
	var out []Secret
	for _, b := range f.Body.(*hclsyntax.Body).Blocks {
		if b.Type != "secret" || len(b.Labels) != 1 {
			continue
		}
		s := Secret{Name: b.Labels[0], Env: "FLOWCTL_SECRET_" + strings.ToUpper(b.Labels[0])}
		for _, a := range b.Body.Attributes {
			v, d := a.Expr.Value(nil)
			if d.HasErrors() || !v.Type().Equals(cty.String) {
				continue
			}
			switch a.Name {
			case "env":
				s.Env = v.AsString()
			case "description":
				s.Description = v.AsString()
			}
		}
		out = append(out, s)
	}
	return out
}
