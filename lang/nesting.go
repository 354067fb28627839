package lang

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
)

// MaxNesting is how deep brackets, strings and template interpolations may
// nest in a file. Hand-written flows nest a few levels; a file nested
// hundreds of thousands deep (generated or hostile) would make the HCL
// parser recurse that deep, for seconds and gigabytes, so it is refused
// before parsing.
const MaxNesting = 256

// MaxExpressionDepth bounds how deep the syntax tree of one expression may
// be, operators included: the parser and every walk of the tree recurse
// once for each unary operator (- - - x), each binary operator of a chain
// (a + b + c is ((a + b) + c)), each conditional (a ? b : c ? d : e),
// each index, attribute or call after an operand (a[x][y], f().b), each
// bracket and each %{ if } or %{ for } a template opens. A flow's
// expressions are a few levels deep; a million unary minuses would
// overflow the stack, and two hundred thousand take a gigabyte.
const MaxExpressionDepth = 1000

// checkNesting scans src the way the HCL lexer nests it — brackets,
// quoted strings, heredocs and the ${ } and %{ } of templates, skipping
// comments — and reports where the nesting first goes deeper than
// MaxNesting, or an expression deeper than MaxExpressionDepth. It is a
// guard, not a parser: it may miscount a construct or two, which matters
// only hundreds of levels deep.
//
// The depth of an expression is counted as its tree would be: in each
// bracket, string or interpolation, the operators since the last
// separator (a comma, an equals sign, a new line between a block's
// attributes or an object's items), plus one for each of these frames
// around it.
//
// It also returns where top-level items seem to start: the offsets of
// lines that begin with a name outside every bracket, string and
// comment. parseSplit parses the file in pieces cut there, and falls back
// to parsing it whole when a cut was not where it looked.
func checkNesting(src []byte, filename string) (*hcl.Diagnostic, []int) {
	var starts []int
	type frame struct {
		kind   byte   // '{', '[', '(' or 't' (a template interpolation) in code; '"' a string; 'h' a heredoc
		marker []byte // a heredoc's closing marker
		ops    int    // operators since the frame's last separator; open %{ if } and %{ for } in a template
	}
	var stack []frame
	base := 0  // the operators outside every frame
	depth := 0 // len(stack), and every frame's ops and base
	top := func() byte {
		if len(stack) == 0 {
			return 0
		}
		return stack[len(stack)-1].kind
	}
	ops := func() *int {
		if len(stack) == 0 {
			return &base
		}
		return &stack[len(stack)-1].ops
	}
	// op counts an operator (or a directive opening) at offset at;
	// n is -1 for a directive's end.
	op := func(n, at int) *hcl.Diagnostic {
		o := ops()
		if *o+n < 0 {
			n = -*o
		}
		*o += n
		depth += n
		if depth > MaxExpressionDepth {
			return depthError(src, filename, at)
		}
		return nil
	}
	separate := func() {
		o := ops()
		depth -= *o
		*o = 0
	}
	push := func(f frame, at int) *hcl.Diagnostic {
		stack = append(stack, f)
		depth++
		if len(stack) > MaxNesting {
			return nestingError(src, filename, at)
		}
		if depth > MaxExpressionDepth {
			return depthError(src, filename, at)
		}
		return nil
	}
	pop := func() {
		depth -= 1 + stack[len(stack)-1].ops
		stack = stack[:len(stack)-1]
	}
	lineStart := true
	for i := 0; i < len(src); i++ {
		c := src[i]
		atLineStart := lineStart
		lineStart = c == '\n'
		switch top() {
		case '"':
			switch {
			case c == '\\':
				i++
			case c == '"' || c == '\n':
				pop()
			case (c == '$' || c == '%') && i+1 < len(src) && src[i+1] == '{':
				if d := directive(src, i, op); d != nil {
					return d, nil
				}
				if d := push(frame{kind: 't'}, i); d != nil {
					return d, nil
				}
				i++
			case (c == '$' || c == '%') && i+1 < len(src) && src[i+1] == c:
				i++ // $$ and %% escape the next ${ or %{
			}
			continue
		case 'h':
			if atLineStart {
				end := bytes.IndexByte(src[i:], '\n')
				if end < 0 {
					end = len(src) - i
				}
				if bytes.Equal(bytes.TrimSpace(src[i:i+end]), stack[len(stack)-1].marker) {
					pop()
					i += end
					lineStart = true
					continue
				}
			}
			if (c == '$' || c == '%') && i+1 < len(src) && src[i+1] == '{' {
				if d := directive(src, i, op); d != nil {
					return d, nil
				}
				if d := push(frame{kind: 't'}, i); d != nil {
					return d, nil
				}
				i++
			}
			continue
		}
		// Code: the top level, brackets and template interpolations.
		if atLineStart && len(stack) == 0 && (c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			starts = append(starts, i)
		}
		var d *hcl.Diagnostic
		switch {
		case c == '#' || (c == '/' && i+1 < len(src) && src[i+1] == '/'):
			for i < len(src) && src[i] != '\n' {
				i++
			}
			lineStart = true
			if t := top(); t == 0 || t == '{' {
				separate()
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			end := bytes.Index(src[i+2:], []byte("*/"))
			if end < 0 {
				return nil, nil
			}
			i += end + 3
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= utf8.RuneSelf:
			// A name (which may hold dashes: a-b is one name).
			for i+1 < len(src) && (isIdentByte(src[i+1]) || src[i+1] >= utf8.RuneSelf) {
				i++
			}
		case c >= '0' && c <= '9':
			i = skipNumber(src, i)
		case c == '\n':
			if t := top(); t == 0 || t == '{' {
				separate() // the end of an attribute or an object's item
			}
		case c == ',':
			separate()
		case c == '=':
			switch {
			case i+1 < len(src) && src[i+1] == '=':
				d = op(1, i) // ==
				i++
			case i+1 < len(src) && src[i+1] == '>':
				separate() // a for expression's key => value
				i++
			default:
				separate()
			}
		case c == '"':
			d = push(frame{kind: '"'}, i)
		case c == '<' && i+1 < len(src) && src[i+1] == '<':
			j := i + 2
			if j < len(src) && src[j] == '-' {
				j++
			}
			k := j
			for k < len(src) && (isIdentByte(src[k]) || src[k] >= utf8.RuneSelf) {
				k++
			}
			if k > j && k < len(src) && (src[k] == '\n' || src[k] == '\r') {
				d = push(frame{kind: 'h', marker: src[j:k]}, i)
				i = k
				lineStart = true
			}
		case c == '[' || c == '(':
			// An index or a call applies to what is before it; a list
			// or parentheses nest. Either way a level.
			if d = op(1, i); d == nil {
				d = push(frame{kind: c}, i)
			}
		case c == '{':
			d = push(frame{kind: c}, i)
		case c == '}' || c == ']' || c == ')':
			if len(stack) > 0 {
				pop()
			}
		case c == '!' || c == '<' || c == '>':
			if i+1 < len(src) && src[i+1] == '=' {
				i++ // != <= >=
			}
			d = op(1, i)
		case c == '&' || c == '|':
			if i+1 < len(src) && src[i+1] == c {
				i++ // && ||
			}
			d = op(1, i)
		case c == '-' || c == '+' || c == '*' || c == '/' || c == '%' || c == '?' || c == '.':
			d = op(1, i)
		}
		if d != nil {
			return d, nil
		}
	}
	return nil, starts
}

// directive counts the %{ if } and %{ for } of a template, which nest
// until their %{ endif } and %{ endfor }, at src[i:] ("%{").
func directive(src []byte, i int, op func(n, at int) *hcl.Diagnostic) *hcl.Diagnostic {
	if src[i] != '%' {
		return nil
	}
	j := i + 2
	for j < len(src) && (src[j] == ' ' || src[j] == '\t' || src[j] == '~') {
		j++
	}
	word := src[j:]
	k := 0
	for k < len(word) && word[k] >= 'a' && word[k] <= 'z' {
		k++
	}
	switch string(word[:k]) {
	case "if", "for":
		return op(1, i)
	case "endif", "endfor":
		return op(-1, i)
	}
	return nil
}

// skipNumber returns the offset of the last byte of the number literal
// that starts at src[i]: digits, a fraction and an exponent (1.5e-3).
func skipNumber(src []byte, i int) int {
	digits := func(i int) int {
		for i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9' {
			i++
		}
		return i
	}
	i = digits(i)
	if i+2 < len(src) && src[i+1] == '.' && src[i+2] >= '0' && src[i+2] <= '9' {
		i = digits(i + 2)
	}
	if i+1 < len(src) && (src[i+1] == 'e' || src[i+1] == 'E') {
		j := i + 2
		if j < len(src) && (src[j] == '+' || src[j] == '-') {
			j++
		}
		if j < len(src) && src[j] >= '0' && src[j] <= '9' {
			i = digits(j)
		}
	}
	return i
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func nestingError(src []byte, filename string, at int) *hcl.Diagnostic {
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Nesting too deep",
		Detail: "Brackets, strings and template interpolations nest more than " + strconv.Itoa(MaxNesting) +
			" levels deep here. A flow needs a few levels; the file is not parsed.",
		Subject: OffsetRange(src, filename, at).Ptr(),
	}
}

func depthError(src []byte, filename string, at int) *hcl.Diagnostic {
	d := nestingError(src, filename, at)
	d.Summary = "Expression too deep"
	d.Detail = "The expression here nests more than " + strconv.Itoa(MaxExpressionDepth) +
		" levels deep, counting its operators (a chain such as - - - x, a + b + c + … or a ? b : c ? …), indexes, brackets and template directives. A flow's expressions need a few levels; the file is not parsed."
	return d
}

// OffsetRange is the range of the character at byte offset at of src, the
// text of the file filename (at is kept within src), for a diagnostic about
// a file that was not parsed as HCL (a JSON file's syntax error).
func OffsetRange(src []byte, filename string, at int) hcl.Range {
	at = max(0, min(at, len(src)))
	pos := posOf(src, at)
	end := pos
	if at < len(src) {
		end.Byte++
		end.Column++
	}
	return hcl.Range{Filename: filename, Start: pos, End: end}
}

// posOf is the position of byte offset at in src.
func posOf(src []byte, at int) hcl.Pos {
	lineStart := bytes.LastIndexByte(src[:at], '\n') + 1
	return hcl.Pos{
		Line:   1 + bytes.Count(src[:at], []byte("\n")),
		Column: 1 + utf8.RuneCount(src[lineStart:at]),
		Byte:   at,
	}
}
