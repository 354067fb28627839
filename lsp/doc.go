// Package lsp is flowctl's language server: the Language Server Protocol
// (3.17, over standard input and output) on top of the compiler.
//
// The protocol's JSON-RPC is github.com/creachadair/jrpc2's, and so is
// the framing it sends (channel.LSP); the frames it reads are framing.go's,
// which bounds the header and the length (MaxMessageSize) before the
// library sees a message. Its types are go.lsp.dev/protocol's, with the
// few 3.17 additions in protocol.go. The server keeps the open documents
// (server.go) and one workspace of checks (workspace.go): a flow file
// compiled by package compiler exactly as validate compiles it (with the
// open documents' text in place of the files), a test file checked
// against its flow, a block file on its own. A check is immutable; an
// edit makes the checks that read the edited file stale, and the next
// request or the debounced diagnostics (diagnostics.go) make new ones, so
// handlers answer from a consistent snapshot and never from a half-edited
// tree. Each feature is one file of thin handlers over the checks: hover,
// complete, navigate (definition, references, rename), actions (code
// actions, formatting), symbols, tokens (semantic tokens), hints (inlay
// hints, code lenses), with occurrences.go listing the names of a file's
// syntax tree and locate.go what stands at a position.
//
// The sibling packages server and mcp serve flows over HTTP and MCP; this
// one serves the language to editors (docs/editors.md).
package lsp
