// Package sandbox holds what the code runtimes share: the error every
// problem of a go, js or python block's code is reported with, and the
// mapping of the code's lines and columns to the file that holds it (the
// flow file for inline code, or the source_file).
//
// The runtimes are its sub-packages: gorun runs go blocks in yaegi, jsrun
// runs js blocks in goja, both in process; isolate runs either in confined
// worker processes, and python blocks (pyrun: CPython with an embedded
// runner) and compiled go blocks (gobuild) in workers of their own.
package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"unicode/utf8"

	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
)

// Error is a problem with a code block's code or a call of it: it does not
// compile, it threw or panicked, it timed out, its result does not fit.
type Error struct {
	Block string
	// Line is the line of the file holding the code where the problem
	// is; 0 when unknown.
	Line int
	// Text is what follows `block "NAME"` in the message, as printed:
	// " panicked at flow.hcl:12: boom", " line 7: TypeError: …",
	// ": execute returned undefined".
	Text string
	// Range is where a diagnostic about it points; zero when nowhere in
	// particular.
	Range hcl.Range
	// Err is the cause, such as context.DeadlineExceeded.
	Err error
}

func (e *Error) Error() string { return "block " + strconv.Quote(e.Block) + e.Text }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// NotANumber is what a code block's output that is NaN or an infinity
// fails with: JSON cannot write them (JavaScript's JSON.stringify makes
// them null), and no flow value holds them. value is as JavaScript
// writes it (NaN, Infinity, -Infinity); path is where inside the output
// it is (".mean", "[3]"), "" for the output itself, or "?" when the
// runtime cannot say.
func NotANumber(output, value, path string) string {
	switch path {
	case "":
		return fmt.Sprintf("output %q is %s, which is not a number a flow can hold", output, value)
	case "?":
		return fmt.Sprintf("output %q holds %s, which is not a number a flow can hold", output, value)
	}
	return fmt.Sprintf("output %q holds %s at %s, which is not a number a flow can hold", output, value, path)
}

// FileLine maps a line of a block's code (1-based) to the line of the file
// that holds the code; 0, unknown, stays 0.
func FileLine(def *lang.BlockDef, line int) int {
	switch {
	case line <= 0:
		return 0
	case def.SourceLine <= 0:
		return line
	}
	return def.SourceLine + line - 1
}

// Place renders where a line of a block's code is: "flow.hcl:12". Line 0,
// unknown, is the code's first line.
func Place(def *lang.BlockDef, line int) string {
	name := def.SourceRange.Filename
	if name == "" {
		name = "the block's source"
	}
	return name + ":" + strconv.Itoa(FileLine(def, max(line, 1)))
}

// maxFileBytes bounds the file read to place a range.
const maxFileBytes = 64 << 20

// Range is the range of the file holding a block's code to point a
// diagnostic at: on line of the code, the chars characters from col (a
// byte offset into the line, 1-based), or from col to the end of the
// line's text when chars is 0, or the line's text when col is 0. Lines map
// one to one; columns are found by reading the file and matching the
// code's line at the end of the file's line (a heredoc strips
// indentation). When that fails the range has the right line and starts
// at the code; when line is 0 it is the source argument.
func Range(def *lang.BlockDef, line, col, chars int) hcl.Range {
	if line <= 0 || def.SourceRange.Filename == "" {
		return def.SourceRange
	}
	fl := FileLine(def, line)
	fallback := hcl.Range{
		Filename: def.SourceRange.Filename,
		Start:    hcl.Pos{Line: fl, Column: 1, Byte: def.SourceRange.Start.Byte},
		End:      hcl.Pos{Line: fl, Column: 1, Byte: def.SourceRange.Start.Byte},
	}
	srcLine, ok := lineOf([]byte(def.Source), line)
	if !ok {
		return fallback
	}
	var file []byte
	if def.SourceFile != "" && def.SourceLine == 1 {
		file = []byte(def.Source) // the code is the whole file
	} else {
		if fl < def.SourceRange.Start.Line || fl > def.SourceRange.End.Line {
			return def.SourceRange // a quoted string with \n escapes: its lines do not map
		}
		b, err := readFileCapped(def.SourceRange.Filename, maxFileBytes)
		if err != nil {
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
	pos := func(b int) hcl.Pos { // b: a byte offset into the code's line
		return hcl.Pos{Line: fl, Column: utf8.RuneCount(fileLine[:indent+b]) + 1, Byte: start + indent + b}
	}
	// By default the line's text, without its leading and trailing blanks.
	from := len(srcLine) - len(bytes.TrimLeft(srcLine, " \t"))
	to := len(bytes.TrimRight(srcLine, " \t\r"))
	if col > 0 && col-1 <= len(srcLine) {
		from = col - 1
		if chars > 0 {
			to = from
			for n := 0; n < chars && to < len(srcLine); n++ {
				_, size := utf8.DecodeRune(srcLine[to:])
				to += size
			}
		}
	}
	to = max(from, to)
	return hcl.Range{Filename: def.SourceRange.Filename, Start: pos(from), End: pos(to)}
}

// RuneOffset is the byte offset of the n-th rune (0-based) of s, capped at
// len(s): for runtimes that count columns in characters.
func RuneOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}

// SourceLine is line n (1-based) of a block's code.
func SourceLine(src string, n int) (string, bool) {
	b, ok := lineOf([]byte(src), n)
	return string(b), ok
}

func readFileCapped(path string, max int64) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() || st.Size() > max {
		return nil, errors.New("not a regular file of a reasonable size")
	}
	return os.ReadFile(path)
}

// lineStart is the byte offset of line n (1-based) of b.
func lineStart(b []byte, n int) (int, bool) {
	if n < 1 {
		return 0, false
	}
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
