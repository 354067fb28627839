package lang

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// Text shown to people — source excerpts, diagnostics, step errors and
// logs — may come from a file or a program that means harm: a terminal
// escape sequence in a flow file (ESC ] 0; retitles the terminal, ESC [2J
// clears it, a carriage return overwrites a line) would act on the
// terminal or the CI log it is printed to. Such text is printed with its
// control characters and the bytes that are not UTF-8 written out as Go
// escapes would write them.

// EscapeControl returns s with every control character but tab and
// newline (a carriage return too, unless a newline follows it), every
// byte that is not part of valid UTF-8 and the Unicode controls of
// bidirectional text, which can make a line read as another, written as
// escapes: \x1b, \xff, \u202e. Text without them is returned as it is.
func EscapeControl(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if esc := escapeRune(s, i, r, size); esc != "" {
			b.WriteString(esc)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// EscapeControlLine is EscapeControl for text shown on one line: a
// newline is escaped too (\n).
func EscapeControlLine(s string) string {
	return strings.ReplaceAll(EscapeControl(s), "\n", `\n`)
}

// An Escaped is text escaped with EscapeControl that can tell where a byte
// offset of the original text is in it.
type Escaped struct {
	Text string
	// at are the original offsets of the escaped characters, with the
	// bytes the text has gained up to and including each.
	at []escapedAt
}

type escapedAt struct {
	orig, size, gained int
}

// EscapeControlOffsets escapes src as EscapeControl does and keeps what
// Offset needs to move offsets into it.
func EscapeControlOffsets(src []byte) Escaped {
	s := string(src)
	if !needsEscape(s) {
		return Escaped{Text: s}
	}
	var b strings.Builder
	var at []escapedAt
	gained := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if esc := escapeRune(s, i, r, size); esc != "" {
			b.WriteString(esc)
			gained += len(esc) - size
			at = append(at, escapedAt{i, size, gained})
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return Escaped{Text: b.String(), at: at}
}

// Offset is where byte offset p of the original text is in the escaped
// text: an offset inside an escaped character goes to the escape's start.
func (e Escaped) Offset(p int) int {
	i := sort.Search(len(e.at), func(i int) bool { return e.at[i].orig+e.at[i].size > p })
	gained := 0
	if i > 0 {
		gained = e.at[i-1].gained
	}
	if i < len(e.at) && p > e.at[i].orig {
		p = e.at[i].orig
	}
	return p + gained
}

// escapeRune is the escape of the character r of size bytes at s[i:], or
// "" when it is printed as it is.
func escapeRune(s string, i int, r rune, size int) string {
	switch {
	case r == utf8.RuneError && size <= 1:
		return fmt.Sprintf(`\x%02x`, s[i])
	case r == '\t' || r == '\n':
		return ""
	case r == '\r' && i+1 < len(s) && s[i+1] == '\n':
		return "" // a line ending of Windows
	case r == '\r':
		return `\r`
	case r < 0x20:
		return fmt.Sprintf(`\x%02x`, r)
	case r == 0x7f || (r >= 0x80 && r < 0xa0):
		return fmt.Sprintf(`\u%04x`, r)
	case isBidiControl(r):
		return fmt.Sprintf(`\u%04x`, r)
	}
	return ""
}

// isBidiControl reports whether r is one of the characters that reorder
// bidirectional text (embeddings, overrides, isolates, marks), with which
// code can be made to read differently from what it is ("Trojan Source").
func isBidiControl(r rune) bool {
	return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0x061c
}

// needsEscape reports whether s has anything EscapeControl escapes.
func needsEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f || c >= 0x80 {
			return needsEscapeSlow(s)
		}
		if c == '\r' && (i+1 == len(s) || s[i+1] != '\n') {
			return true
		}
	}
	return false
}

// needsEscapeSlow is needsEscape for text with bytes beyond ASCII.
func needsEscapeSlow(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if escapeRune(s, i, r, size) != "" {
			return true
		}
		i += size
	}
	return false
}
