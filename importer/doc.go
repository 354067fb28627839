// Package importer is what flowctl import runs (cmd/flowctl/cli/import.go
// renders its results): it reads the sources, detects their format and
// writes what the format's converter builds. One package per source
// format converts: importer/anythingllm (AnythingLLM agent flows),
// importer/agentflow (AgentFlow pipelines with their registry's blocks)
// and importer/n8n (n8n workflows of the core nodes); each registers
// itself with Register when imported. write.go writes the files, confined
// to the output directory, replacing none unless asked.
//
// The converters write the HCL of what they convert with hclwrite (the
// helpers of hclgen.go build expressions as tokens; flowfile.go assembles
// and formats the files with lang.Format) and report problems as
// hcl.Diagnostics at the source's JSON path (jsonsrc.go reads JSON with
// the range and JSON Pointer of every value). The semantics are the
// originals': AnythingLLM's flow executor, AgentFlow's doer and resolver,
// n8n's nodes and expression evaluator; docs/import.md says what maps to
// what and where a flow knowingly differs.
//
// The corpus of cases is testdata; importtest runs them against a local
// server and a scripted model (for cmd/flowctl/cli's tests), and n8nlive
// checks the n8n cases against n8n itself. The package sits above
// compiler and blocks (it reads the built-in blocks' names) and below the
// commands.
package importer
