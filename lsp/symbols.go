package lsp

import (
	"context"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"go.lsp.dev/protocol"
)

// symbolKinds are the LSP symbol kinds of the top-level blocks.
var symbolKinds = map[string]protocol.SymbolKind{
	"flow": protocol.SymbolKindModule, "input": protocol.SymbolKindVariable, "secret": protocol.SymbolKindKey,
	"locals": protocol.SymbolKindNamespace, "memory": protocol.SymbolKindVariable, "block": protocol.SymbolKindClass,
	"step": protocol.SymbolKindFunction, "output": protocol.SymbolKindProperty, "schedule": protocol.SymbolKindEvent, "trigger": protocol.SymbolKindEvent,
	"mcp_server": protocol.SymbolKindModule, "test": protocol.SymbolKindMethod,
}

// fileSymbols are the symbols of a file's syntax tree: its top-level
// blocks (a step with its block as detail, locals with each local,
// blocks with their inputs and outputs).
func fileSymbols(f *hcl.File, t *text) []protocol.DocumentSymbol {
	out := []protocol.DocumentSymbol{}
	body, ok := f.Body.(*hclsyntax.Body)
	if !ok {
		return out
	}
	for _, b := range body.Blocks {
		kind, ok := symbolKinds[b.Type]
		if !ok {
			continue
		}
		sym := protocol.DocumentSymbol{Name: b.Type, Kind: kind, Range: t.rng(b.Range()), SelectionRange: t.rng(b.TypeRange)}
		if len(b.Labels) > 0 {
			sym.Name = b.Type + " " + b.Labels[0]
			sym.SelectionRange = t.rng(b.LabelRanges[0])
		}
		switch b.Type {
		case "step":
			if a := b.Body.Attributes["use"]; a != nil {
				if v, ok := stringValue(a.Expr); ok {
					sym.Detail = v
				}
			}
		case "locals":
			for _, a := range sortedAttrs(b.Body) {
				sym.Children = append(sym.Children, protocol.DocumentSymbol{Name: "local." + a.Name, Kind: protocol.SymbolKindConstant, Range: t.rng(a.SrcRange), SelectionRange: t.rng(a.NameRange)})
			}
		case "block", "test":
			for _, inner := range b.Body.Blocks {
				if len(inner.Labels) == 0 {
					continue
				}
				k := protocol.SymbolKindField
				if inner.Type == "mock" || inner.Type == "override" {
					k = protocol.SymbolKindEvent
				}
				sym.Children = append(sym.Children, protocol.DocumentSymbol{Name: inner.Type + " " + inner.Labels[0], Kind: k, Range: t.rng(inner.Range()), SelectionRange: t.rng(inner.LabelRanges[0])})
			}
		}
		out = append(out, sym)
	}
	return out
}

func sortedAttrs(body *hclsyntax.Body) []*hclsyntax.Attribute {
	out := make([]*hclsyntax.Attribute, 0, len(body.Attributes))
	for _, a := range body.Attributes {
		out = append(out, a)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].SrcRange.Start.Byte < out[j-1].SrcRange.Start.Byte; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func (s *Server) documentSymbol(ctx context.Context, p protocol.DocumentSymbolParams) ([]protocol.DocumentSymbol, error) {
	path := pathOf(p.TextDocument.URI)
	t := s.textFor(path)
	f, _ := hclsyntax.ParseConfig(t.src, path, hcl.InitialPos)
	if f == nil {
		return []protocol.DocumentSymbol{}, nil
	}
	return fileSymbols(f, t), nil
}

// symbolCache keeps each workspace file's symbols with the stamp of the
// text they were read from.
var symbolCache sync.Map // path → cachedSymbols

type cachedSymbols struct {
	stamp string
	syms  []protocol.DocumentSymbol
	text  *text
}

func (s *Server) workspaceSymbol(ctx context.Context, p protocol.WorkspaceSymbolParams) ([]protocol.SymbolInformation, error) {
	query := strings.ToLower(p.Query)
	out := []protocol.SymbolInformation{}
	overlay := s.overlay()
	for _, path := range s.ws.filesLocked() {
		stamp := s.ws.stamp(path, overlay)
		var cs cachedSymbols
		if v, ok := symbolCache.Load(path); ok && v.(cachedSymbols).stamp == stamp {
			cs = v.(cachedSymbols)
		} else {
			t := s.textFor(path)
			f, _ := hclsyntax.ParseConfig(t.src, path, hcl.InitialPos)
			cs = cachedSymbols{stamp: stamp, text: t}
			if f != nil {
				cs.syms = fileSymbols(f, t)
			}
			symbolCache.Store(path, cs)
		}
		for _, sym := range cs.syms {
			name := sym.Name
			if i := strings.IndexByte(name, ' '); i >= 0 {
				name = name[i+1:]
			}
			if query != "" && !strings.Contains(strings.ToLower(name), query) {
				continue
			}
			out = append(out, protocol.SymbolInformation{
				Name: sym.Name, Kind: sym.Kind,
				Location: protocol.Location{URI: uriOf(path), Range: sym.SelectionRange},
			})
		}
	}
	return out, nil
}
