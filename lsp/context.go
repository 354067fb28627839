package lsp

import (
	"bytes"
	"regexp"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// frame is a block (or an object constructor) open at an offset.
type frame struct {
	typ    string   // the block type; "" for an object constructor
	labels []string // the block's labels
	start  int      // offset of its opening brace
}

// openBlocks finds the blocks open at off from the tokens of src, which
// need not parse: the outermost first. It is what completion reads
// while a line is half typed.
func openBlocks(src []byte, off int) []frame {
	// Lex from the start of the top-level block around off: the last
	// line before it that opens a block at the first column, as fmt
	// writes top-level blocks; the whole file when there is none.
	from := 0
	for i := min(off, len(src)); i > 0; i-- {
		if src[i-1] == '\n' && i < off && topHeaderRE.Match(lineAt(src, i)) {
			from = i
			break
		}
	}
	src, off = src[from:min(off, len(src))], off-from
	toks, _ := hclsyntax.LexConfig(src, "", hcl.InitialPos)
	var stack []frame
	lineStart := 0 // index of the first token of the current line
	for i, t := range toks {
		if t.Range.Start.Byte >= off {
			break
		}
		switch t.Type {
		case hclsyntax.TokenNewline:
			lineStart = i + 1
		case hclsyntax.TokenOBrace:
			f := frame{start: t.Range.Start.Byte}
			header := toks[lineStart:i]
			if len(header) > 0 && header[0].Type == hclsyntax.TokenIdent && isHeader(header) {
				f.typ = string(header[0].Bytes)
				for j := 1; j < len(header); j++ {
					if header[j].Type == hclsyntax.TokenQuotedLit {
						f.labels = append(f.labels, string(header[j].Bytes))
					}
				}
			}
			stack = append(stack, f)
			lineStart = i + 1
		case hclsyntax.TokenCBrace:
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
	}
	return stack
}

var topHeaderRE = regexp.MustCompile(`^[a-z_][a-z0-9_]*(\s+"[^"\n]*")*\s*\{`)

// lineAt is the line of src that starts at i.
func lineAt(src []byte, i int) []byte {
	end := bytes.IndexByte(src[i:], '\n')
	if end < 0 {
		return src[i:]
	}
	return src[i : i+end]
}

// isHeader reports whether tokens are a block header: a type and quoted
// labels (or bare identifiers), nothing else.
func isHeader(toks hclsyntax.Tokens) bool {
	for _, t := range toks[1:] {
		switch t.Type {
		case hclsyntax.TokenOQuote, hclsyntax.TokenCQuote, hclsyntax.TokenQuotedLit, hclsyntax.TokenIdent:
		default:
			return false
		}
	}
	return true
}
