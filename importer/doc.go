// Package importer converts flows written for other systems into flowctl
// flows: AnythingLLM agent flows (anythingllm.go), AgentFlow pipelines
// with their registry's blocks (agentflow*.go) and n8n workflows of the
// core nodes (n8n*.go). It is what flowctl import runs
// (cmd/flowctl/cli/import.go renders its results); write.go writes the
// files, confined to the output directory, replacing none unless asked.
//
// Each format has a file of its own and a function per node or step
// type, which writes the HCL of what it converts with hclwrite (the
// helpers of hclgen.go build expressions as tokens; flowfile.go assembles
// and formats the files with lang.Format) and reports problems as
// hcl.Diagnostics at the source's JSON path (jsonsrc.go reads JSON with
// the range and JSON Pointer of every value). The semantics are the
// originals': AnythingLLM's flow executor, AgentFlow's doer and resolver,
// n8n's nodes and expression evaluator; docs/import.md says what maps to
// what and where a flow knowingly differs.
//
// n8n's Code nodes, the expressions HCL cannot say and the list nodes
// run on goja through the n8n_code block (its source is n8n_code.js),
// which import writes to blocks/n8n.block.hcl.
//
// The corpus of cases is testdata; importtest runs them against a local
// server and a scripted model (for cmd/flowctl/cli's tests), and n8nlive
// checks the n8n cases against n8n itself. The package sits above
// compiler and blocks (it reads the built-in blocks' names) and below the
// commands.
package importer
