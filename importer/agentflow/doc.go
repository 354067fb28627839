// Package agentflow converts AgentFlow pipelines, with their registry's
// blocks, into flowctl flows, with the writer of package importer.
// Importing it registers the converter with importer.Import.
package agentflow

import "github.com/flowctl/flowctl/importer"

func init() { importer.Register(importer.AgentFlow, convertAgentFlow) }
