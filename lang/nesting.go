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

// checkNesting scans src the way the HCL lexer nests it — brackets,
// quoted strings, heredocs and the ${ } and %{ } of templates, skipping
// comments — and reports where the nesting first goes deeper than
// MaxNesting. It is a guard, not a parser: it may miscount a construct or
// two, which matters only hundreds of levels deep.
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
	}
	var stack []frame
	top := func() byte {
		if len(stack) == 0 {
			return 0
		}
		return stack[len(stack)-1].kind
	}
	push := func(f frame, at int) *hcl.Diagnostic {
		stack = append(stack, f)
		if len(stack) > MaxNesting {
			return nestingError(src, filename, at)
		}
		return nil
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
				stack = stack[:len(stack)-1]
			case (c == '$' || c == '%') && i+1 < len(src) && src[i+1] == '{':
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
					stack = stack[:len(stack)-1]
					i += end
					lineStart = true
					continue
				}
			}
			if (c == '$' || c == '%') && i+1 < len(src) && src[i+1] == '{' {
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
		switch {
		case c == '#' || (c == '/' && i+1 < len(src) && src[i+1] == '/'):
			for i < len(src) && src[i] != '\n' {
				i++
			}
			lineStart = true
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			end := bytes.Index(src[i+2:], []byte("*/"))
			if end < 0 {
				return nil, nil
			}
			i += end + 3
		case c == '"':
			if d := push(frame{kind: '"'}, i); d != nil {
				return d, nil
			}
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
				if d := push(frame{kind: 'h', marker: src[j:k]}, i); d != nil {
					return d, nil
				}
				i = k
				lineStart = true
			}
		case c == '{' || c == '[' || c == '(':
			if d := push(frame{kind: c}, i); d != nil {
				return d, nil
			}
		case c == '}' || c == ']' || c == ')':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
	}
	return nil, starts
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func nestingError(src []byte, filename string, at int) *hcl.Diagnostic {
	pos := posOf(src, at)
	end := pos
	end.Byte++
	end.Column++
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Nesting too deep",
		Detail: "Brackets, strings and template interpolations nest more than " + strconv.Itoa(MaxNesting) +
			" levels deep here. A flow needs a few levels; the file is not parsed.",
		Subject: &hcl.Range{Filename: filename, Start: pos, End: end},
	}
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
