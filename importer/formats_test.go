package importer_test

// The tests of Import run every format's converter.
import (
	_ "github.com/flowctl/flowctl/importer/agentflow"
	_ "github.com/flowctl/flowctl/importer/anythingllm"
	_ "github.com/flowctl/flowctl/importer/n8n"
)
