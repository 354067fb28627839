package lsp

import (
	"go.lsp.dev/protocol"
)

// The LSP types that go.lsp.dev/protocol (LSP 3.16) lacks or has in an
// older shape: the 3.17 additions (inlay hints, the position encoding),
// a change event that tells an incremental change (with a range) from a
// full one, and the semantic tokens options with their legend.

// contentChange is one change of textDocument/didChange: Range is nil
// when Text is the whole document.
type contentChange struct {
	Range *protocol.Range `json:"range,omitempty"`
	Text  string          `json:"text"`
}

type didChangeParams struct {
	TextDocument   protocol.VersionedTextDocumentIdentifier `json:"textDocument"`
	ContentChanges []contentChange                          `json:"contentChanges"`
}

// serverCapabilities are protocol.ServerCapabilities with what LSP 3.17
// added.
type serverCapabilities struct {
	protocol.ServerCapabilities
	PositionEncoding       string                 `json:"positionEncoding,omitempty"`
	InlayHintProvider      bool                   `json:"inlayHintProvider,omitempty"`
	SemanticTokensProvider *semanticTokensOptions `json:"semanticTokensProvider,omitempty"`
}

type initializeResult struct {
	Capabilities serverCapabilities   `json:"capabilities"`
	ServerInfo   *protocol.ServerInfo `json:"serverInfo,omitempty"`
}

type semanticTokensOptions struct {
	Legend protocol.SemanticTokensLegend `json:"legend"`
	Full   bool                          `json:"full"`
	Range  bool                          `json:"range"`
}

// inlayHint is LSP 3.17's InlayHint (kind 1: a type).
type inlayHint struct {
	Position     protocol.Position `json:"position"`
	Label        string            `json:"label"`
	Kind         int               `json:"kind,omitempty"`
	Tooltip      string            `json:"tooltip,omitempty"`
	PaddingLeft  bool              `json:"paddingLeft,omitempty"`
	PaddingRight bool              `json:"paddingRight,omitempty"`
}

const inlayHintKindType = 1

type inlayHintParams struct {
	TextDocument protocol.TextDocumentIdentifier `json:"textDocument"`
	Range        protocol.Range                  `json:"range"`
}

// initOptions are the initializationOptions flowctl lsp reads: the
// registry directories (as --registry gives them; relative to the
// workspace folder) and the diagnostics delay.
type initOptions struct {
	Registries []string `json:"registries"`
	DebounceMS *int     `json:"debounceMs"`
}
