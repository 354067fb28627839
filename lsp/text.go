package lsp

import (
	"sort"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"go.lsp.dev/protocol"
)

// text is a document's content with the offset of each line's start, to
// map between byte offsets (hcl.Pos.Byte) and LSP positions (a line and a
// column in UTF-16 code units, the protocol's default encoding).
type text struct {
	src    []byte
	starts []int
}

func newText(src []byte) *text {
	starts := []int{0}
	for i, b := range src {
		if b == '\n' {
			starts = append(starts, i+1)
		}
	}
	return &text{src: src, starts: starts}
}

// offset is the byte offset of an LSP position, clamped to the text: a
// line past the end is the end, a column past a line's end is its end.
func (t *text) offset(p protocol.Position) int {
	line := int(p.Line)
	if line >= len(t.starts) {
		return len(t.src)
	}
	start, end := t.starts[line], len(t.src)
	if line+1 < len(t.starts) {
		end = t.starts[line+1] - 1 // the newline
	}
	off, units := start, 0
	for off < end && units < int(p.Character) {
		r, n := utf8.DecodeRune(t.src[off:end])
		units += utf16.RuneLen(r)
		if r == utf8.RuneError && n <= 1 {
			units = units - utf16.RuneLen(r) + 1
		}
		off += n
	}
	return off
}

// position is the LSP position of a byte offset.
func (t *text) position(off int) protocol.Position {
	off = max(0, min(off, len(t.src)))
	line := sort.Search(len(t.starts), func(i int) bool { return t.starts[i] > off }) - 1
	units := 0
	for i := t.starts[line]; i < off; {
		r, n := utf8.DecodeRune(t.src[i:off])
		if r == utf8.RuneError && n <= 1 {
			units++
		} else {
			units += utf16.RuneLen(r)
		}
		i += n
	}
	return protocol.Position{Line: uint32(line), Character: uint32(units)}
}

// rng is the LSP range of an HCL range of this text (by its byte
// offsets, which are exact where HCL's columns count characters).
func (t *text) rng(r hcl.Range) protocol.Range {
	return protocol.Range{Start: t.position(r.Start.Byte), End: t.position(max(r.End.Byte, r.Start.Byte))}
}

// span is the LSP range of the bytes [from, to).
func (t *text) span(from, to int) protocol.Range {
	return protocol.Range{Start: t.position(from), End: t.position(to)}
}

// applyChanges applies the changes of a didChange notification in order:
// a change with a range replaces it, one without replaces the text.
func applyChanges(src []byte, changes []contentChange) []byte {
	for _, c := range changes {
		if c.Range == nil {
			src = []byte(c.Text)
			continue
		}
		t := newText(src)
		from, to := t.offset(c.Range.Start), t.offset(c.Range.End)
		if to < from {
			from, to = to, from
		}
		out := make([]byte, 0, len(src)-(to-from)+len(c.Text))
		out = append(out, src[:from]...)
		out = append(out, c.Text...)
		src = append(out, src[to:]...)
	}
	return src
}
