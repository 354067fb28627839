// Package anythingllm converts AnythingLLM agent flows into flowctl
// flows, with the writer of package importer. Importing it registers the
// converter with importer.Import.
package anythingllm

import "github.com/flowctl/flowctl/importer"

func init() {
	importer.Register(importer.AnythingLLM, func(c *importer.Conv, _ []*importer.Source) { convertAnythingLLM(c) })
}
