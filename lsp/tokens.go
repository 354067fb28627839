package lsp

import (
	"context"
	"sort"

	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"go.lsp.dev/protocol"
)

// The semantic token legend.
var (
	tokenTypes = []protocol.SemanticTokenTypes{
		protocol.SemanticTokenNamespace, protocol.SemanticTokenType, protocol.SemanticTokenFunction,
		protocol.SemanticTokenVariable, protocol.SemanticTokenProperty, protocol.SemanticTokenKeyword,
		protocol.SemanticTokenParameter,
	}
	tokenModifiers = []protocol.SemanticTokenModifiers{
		protocol.SemanticTokenModifierDeclaration, protocol.SemanticTokenModifierReadonly, protocol.SemanticTokenModifierDefaultLibrary,
	}
)

const (
	tokNamespace = iota // a reference's root: step, input, …
	tokType             // a block name (use = "http", mock "llm", block "x")
	tokFunction         // a function call's name
	tokVariable         // a step, input, local, … name
	tokProperty         // an output field
	tokKeyword          // a top-level block type
	tokParameter        // a step's argument
)

const (
	modDeclaration = 1 << iota
	modReadonly
	modDefaultLibrary
)

type token struct {
	start, end int // byte offsets, on one line
	typ, mods  int
}

func (s *Server) semanticTokens(ctx context.Context, p protocol.SemanticTokensParams) (*protocol.SemanticTokens, error) {
	return s.tokensIn(p.TextDocument.URI, nil)
}

func (s *Server) semanticTokensRange(ctx context.Context, p protocol.SemanticTokensRangeParams) (*protocol.SemanticTokens, error) {
	return s.tokensIn(p.TextDocument.URI, &p.Range)
}

func (s *Server) tokensIn(u protocol.DocumentURI, rng *protocol.Range) (*protocol.SemanticTokens, error) {
	path := pathOf(u)
	t := s.textFor(path)
	f, _ := hclsyntax.ParseConfig(t.src, path, hcl.InitialPos)
	out := &protocol.SemanticTokens{Data: []uint32{}}
	if f == nil {
		return out, nil
	}
	toks := fileTokens(f)
	from, to := 0, len(t.src)
	if rng != nil {
		from, to = t.offset(rng.Start), t.offset(rng.End)
	}
	var line, col uint32
	for _, tk := range toks {
		if tk.end <= from || tk.start >= to {
			continue
		}
		ps, pe := t.position(tk.start), t.position(tk.end)
		if ps.Line != pe.Line {
			continue
		}
		dl, dc := ps.Line-line, ps.Character
		if dl == 0 {
			dc = ps.Character - col
		}
		out.Data = append(out.Data, dl, dc, pe.Character-ps.Character, uint32(tk.typ), uint32(tk.mods))
		line, col = ps.Line, ps.Character
	}
	return out, nil
}

// fileTokens are the tokens of a file: block types, declared names,
// arguments, references, block names and function calls, in order and
// without overlaps.
func fileTokens(f *hcl.File) []token {
	body, ok := f.Body.(*hclsyntax.Body)
	if !ok {
		return nil
	}
	var toks []token
	add := func(r hcl.Range, typ, mods int) {
		if r.End.Byte > r.Start.Byte {
			toks = append(toks, token{start: r.Start.Byte, end: r.End.Byte, typ: typ, mods: mods})
		}
	}
	var visitBody func(b *hclsyntax.Body, blockType string, top bool)
	visitBody = func(b *hclsyntax.Body, blockType string, top bool) {
		for _, a := range b.Attributes {
			if blockType == kindStep && !lang.IsMetaArgument(a.Name) {
				add(a.NameRange, tokParameter, 0)
			}
			hclsyntax.VisitAll(a.Expr, func(n hclsyntax.Node) hcl.Diagnostics {
				switch n := n.(type) {
				case *hclsyntax.FunctionCallExpr:
					add(n.NameRange, tokFunction, modDefaultLibrary)
				case *hclsyntax.ScopeTraversalExpr:
					tr := n.Traversal
					switch tr.RootName() {
					case lang.RootInput, lang.RootSecret, lang.RootLocal, lang.RootMemory, lang.RootStep, lang.RootEach, lang.RootRun, lang.RootFlow, kindOutput, lang.ToolBlock, lang.ToolMCP, lang.RootProvider, lang.RootCollection:
					default:
						return nil
					}
					add(tr[0].SourceRange(), tokNamespace, 0)
					for i, step := range tr[1:] {
						if _, ok := step.(hcl.TraverseAttr); ok {
							typ := tokVariable
							if i > 0 {
								typ = tokProperty
							}
							add(nameRange(step), typ, modReadonly)
						}
					}
				}
				return nil
			})
			if blockType == kindStep && a.Name == "use" {
				if _, ok := stringValue(a.Expr); ok {
					add(labelInner(a.Expr.Range()), tokType, 0)
				}
			}
		}
		for _, inner := range b.Blocks {
			if top {
				add(inner.TypeRange, tokKeyword, 0)
			}
			for _, lr := range inner.LabelRanges {
				typ := tokVariable
				if inner.Type == "block" || inner.Type == "mock" {
					typ = tokType
				}
				add(labelInner(lr), typ, modDeclaration)
			}
			t := blockType
			if top {
				t = inner.Type
			}
			visitBody(inner.Body, t, false)
		}
	}
	visitBody(body, "", true)
	sort.SliceStable(toks, func(i, j int) bool { return toks[i].start < toks[j].start })
	out := toks[:0]
	end := -1
	for _, tk := range toks {
		if tk.start >= end {
			out = append(out, tk)
			end = tk.end
		}
	}
	return out
}
