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
			f := frame{start: from + t.Range.Start.Byte}
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

// stepText is what the text of an open step block says, read from its
// tokens so that it answers while a line of the block is half typed
// and the file does not parse: the block it uses and the arguments and
// nested blocks it sets.
type stepText struct {
	use string
	set map[string]bool
}

// readStep reads the body of the step block whose opening brace is at
// f.start in src, to its closing brace or the end of the file.
func readStep(src []byte, f frame) stepText {
	st := stepText{set: map[string]bool{}}
	if f.start < 0 || f.start >= len(src) {
		return st
	}
	toks, _ := hclsyntax.LexConfig(src[f.start:], "", hcl.InitialPos)
	depth := 0
	lineStart := true
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch t.Type {
		case hclsyntax.TokenOBrace, hclsyntax.TokenOBrack, hclsyntax.TokenOParen, hclsyntax.TokenTemplateInterp, hclsyntax.TokenTemplateControl:
			depth++
		case hclsyntax.TokenCBrace, hclsyntax.TokenCBrack, hclsyntax.TokenCParen, hclsyntax.TokenTemplateSeqEnd:
			depth--
			if depth == 0 {
				return st
			}
		case hclsyntax.TokenIdent:
			if depth != 1 || !lineStart || i+1 >= len(toks) {
				break
			}
			name, next := string(t.Bytes), toks[i+1].Type
			switch next {
			case hclsyntax.TokenEqual:
				st.set[name] = true
				if name == "use" && i+4 < len(toks) && toks[i+2].Type == hclsyntax.TokenOQuote &&
					toks[i+3].Type == hclsyntax.TokenQuotedLit && toks[i+4].Type == hclsyntax.TokenCQuote {
					st.use = string(toks[i+3].Bytes)
				}
			case hclsyntax.TokenOBrace, hclsyntax.TokenOQuote:
				st.set[name] = true
			}
		}
		lineStart = t.Type == hclsyntax.TokenNewline || t.Type == hclsyntax.TokenOBrace
	}
	return st
}
