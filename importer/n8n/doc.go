// Package n8n converts n8n workflows of the core nodes into flowctl
// flows (n8n*.go), with the writer of package importer. Importing it
// registers the converter with importer.Import.
//
// n8n's Code nodes, the expressions HCL cannot say and the list nodes
// run on goja through the n8n_code block (its source is n8n_code.js),
// which import writes to blocks/n8n.block.hcl.
package n8n

import "github.com/flowctl/flowctl/importer"

func init() {
	importer.Register(importer.N8N, func(c *importer.Conv, _ []*importer.Source) { convertN8N(c) })
}
