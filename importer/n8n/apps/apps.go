// Package apps is the registry of app operations flowctl import writes
// beside a flow it imports from n8n: for each operation of an app node it
// converts (Gmail's Add Label, Google Sheets' Append Row…), a flow that
// performs it on the service's REST API — typed inputs (the operation's
// parameters), the credential as a sensitive input the importing flow
// passes its secret to, one or a few http steps, and an output "items",
// the items n8n's node gives for one call. The flows are the files under
// flows/, written byte for byte as NAME.flow.hcl beside the imported
// flow, whose step uses them as flow.NAME; a user reads and changes them
// there. Every import writes the same bytes, so a batch writes each once.
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
)

//go:embed flows/*.flow.hcl
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
