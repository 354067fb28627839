package gorun

import (
	"bytes"
	"os"
	"strconv"

	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
)

// flowLine maps a line of a block's code (1-based) to the line of the flow
// file (or of the source_file) it stands on; line 0, unknown, maps to the
// code's first line.
func flowLine(def *lang.BlockDef, line int) int {
	if line <= 0 {
		return def.SourceLine
	}
	return def.SourceLine + line - 1
}

// sourceRange is the range of the flow file to report a problem at line and
// col of a block's code (col 0: the whole line).
//
// Lines map one to one (the code of a heredoc or a source_file). Columns
// and byte offsets, which the diagnostic writer uses to print the source
// line, are exact for a source_file. For code written inline they are
// found by reading the flow file and matching the code's line at the end
// of the file's line (a heredoc strips the indentation); when that fails,
// the range is the source argument's start, with the right line number.
func sourceRange(def *lang.BlockDef, line, col int) hcl.Range {
	fl := flowLine(def, line)
	fallback := hcl.Range{
		Filename: def.SourceRange.Filename,
		Start:    hcl.Pos{Line: fl, Column: 1, Byte: def.SourceRange.Start.Byte},
		End:      hcl.Pos{Line: fl, Column: 1, Byte: def.SourceRange.Start.Byte},
	}
	if line <= 0 {
		line = 1
		fl = flowLine(def, line)
	}
	srcLine, ok := lineOf([]byte(def.Source), line)
	if !ok {
		return fallback
	}
	var file []byte
	if def.SourceFile != "" && def.SourceLine == 1 {
		file = []byte(def.Source)
	} else {
		if fl < def.SourceRange.Start.Line || fl > def.SourceRange.End.Line {
			// A quoted string with \n escapes: its lines do not map.
			return def.SourceRange
		}
		b, err := os.ReadFile(def.SourceRange.Filename)
		if err != nil || def.SourceRange.End.Byte > len(b) {
			return fallback
		}
		file = b
	}
	start, ok := lineStart(file, fl)
	if !ok {
		return fallback
	}
	fileLine, _ := lineOf(file[start:], 1)
	indent := len(fileLine) - len(srcLine)
	if indent < 0 || !bytes.HasSuffix(fileLine, srcLine) {
		return fallback
	}
	// Highlight from the column (or the first non-blank) to the end of the
	// line, without trailing blanks.
	from := len(srcLine) - len(bytes.TrimLeft(srcLine, " \t"))
	if col > 0 && col-1 <= len(srcLine) {
		from = col - 1
	}
	to := len(bytes.TrimRight(srcLine, " \t\r"))
	if to < from {
		to = from
	}
	return hcl.Range{
		Filename: def.SourceRange.Filename,
		Start:    hcl.Pos{Line: fl, Column: indent + from + 1, Byte: start + indent + from},
		End:      hcl.Pos{Line: fl, Column: indent + to + 1, Byte: start + indent + to},
	}
}

// lineStart is the byte offset of line n (1-based) of b.
func lineStart(b []byte, n int) (int, bool) {
	off := 0
	for l := 1; l < n; l++ {
		i := bytes.IndexByte(b[off:], '\n')
		if i < 0 {
			return 0, false
		}
		off += i + 1
	}
	return off, true
}

// lineOf is line n (1-based) of b, without its line ending.
func lineOf(b []byte, n int) ([]byte, bool) {
	start, ok := lineStart(b, n)
	if !ok {
		return nil, false
	}
	rest := b[start:]
	if i := bytes.IndexByte(rest, '\n'); i >= 0 {
		rest = rest[:i]
	}
	return bytes.TrimSuffix(rest, []byte("\r")), true
}

// place renders where a line of a block's code is in the flow file:
// "flow.hcl:12".
func place(def *lang.BlockDef, line int) string {
	name := def.SourceRange.Filename
	if name == "" {
		name = "the block's source"
	}
	return name + ":" + strconv.Itoa(flowLine(def, line))
}
