// Package thinker turns an intent into a flow that validates (docs/design.md, "The thinker"): it
// asks a language model, stage by stage, what the flow needs, finds what
// the registry already has, creates and tests what it lacks, and wires
// the blocks into a flow that the compiler accepts.
//
// Before the first request the registry is loaded and its code compiled,
// as validate does: the model cannot change a registry block, so one that
// does not validate ends the run at once. The stages then run in order:
//
//   - clarify: is the intent specific enough? On a terminal the user is
//     asked the model's questions (at most three requests); without one
//     an unclear intent fails with the question. Options.NoClarify skips
//     the stage.
//   - decompose: which blocks are needed, each with typed inputs and
//     outputs.
//   - search (no model): each required block is looked up in the
//     registry with package blocks/index (full text, plus embeddings when
//     an embedder is given); a hit serves it when index.Compatible says
//     its types fit.
//   - create_block: a missing block is written by the model, rendered as
//     a block file with hclwrite, parsed back and checked as validate
//     checks it (definition, example fields, code compilation) and
//     against its specification (its runtime, and its inputs and outputs
//     by index.Compatible), and its example run in the sandbox with
//     package blocks/blocktest. Failures go back to the model, at most
//     three tries. llm blocks are checked but their examples are not run.
//     A passing block is written to blocks/NAME.block.hcl next to the
//     flow.
//   - wire: the model assembles the flow; every expression and type it
//     wrote is parsed, the flow rendered with hclwrite (without what does
//     not parse) and compiled with package compiler against the
//     registry.
//   - repair: while the flow has errors, its diagnostics go back to the
//     model as the JSON of validate --json (package lang/diagjson), at
//     most three times.
//
// Each LLM stage is one structured-output request whose JSON schema is
// named after the stage and sent strict where the types allow it; the
// reply is checked against the stage's shape before it is used. A failed
// request or a malformed reply ends the run with an Error naming the
// stage. The flow file is written only when it validates (or with
// Options.Force), block and flow files atomically.
//
// Explain (explain.go) asks why a run failed and for a fix; ExplainRun
// gives it a failed run's context, redacted and budgeted
// (fix_context.go), checks each fix on a copy of the flow and the run
// with FixChecker (fix_check.go), and stages a fix that passed as a
// proposal (fix_stage.go, with AcceptProposal and RecordPattern): one
// implementation for flowctl explain and serve's /v1/runs/{id}/explain.
//
// Weakenings (weaken.go) compares a flow as it is with the flow a proposal
// would make, both compiled, and lists the safeguards the change removes
// or loosens: approval steps and what waits for them, the whens that
// guard them, timeouts, the hosts http and scrape steps reach, where
// secrets go. ProposalWeakenings (weaken_proposal.go) does it for a staged
// proposal's files; the proposal records the list, and accepting such a
// proposal takes more (docs/serve.md, roles author and approve).
//
// The thinker reports what it does as Events; it renders nothing. The
// CLI (flowctl think) shows them as the stages progress or as JSON lines.
// The events and the data they and the results carry (Usage, Change,
// ExplainResult …) live in package thinker/thinkevent, so that code that
// only renders them need not import the thinker; events.go names them
// here.
// Package blocks/llm provides the Model (llm.Executor.Ask), package
// blocks the registry and the executors that run examples.
package thinker
