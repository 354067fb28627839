package views

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
	"unicode/utf8"

	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/lang/diagjson"
	"github.com/hashicorp/hcl/v2"
	"golang.org/x/term"
)

// maxDiagnosticsPerFile is how many diagnostics of one file are printed
// for people; the rest are counted. JSON output keeps them all.
const maxDiagnosticsPerFile = 100

// maxExcerptLine is how much of one source line a diagnostic shows.
const maxExcerptLine = 400

// WriteDiagnostics prints diagnostics with HCL's text writer: a source
// snippet, a caret under the range and the wrapped detail, in colour when
// color is set (the command decides: a terminal, NO_COLOR unset), as wide
// as w when it is a terminal. At most maxDiagnosticsPerFile are printed per
// file, followed by how many more there are.
func WriteDiagnostics(w io.Writer, color bool, files map[string]*hcl.File, diags hcl.Diagnostics) {
	if len(diags) == 0 {
		return
	}
	width := uint(78)
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 20 {
			width = uint(cols - 2)
		}
	}
	ex := excerpts{files: files, lines: map[string][]int{}}
	shown := map[string]int{}
	var cut []string
	more := map[string]int{}
	for _, d := range diags {
		if d.Subject != nil {
			name := d.Subject.Filename
			if shown[name] == maxDiagnosticsPerFile {
				if more[name] == 0 {
					cut = append(cut, name)
				}
				more[name]++
				continue
			}
			shown[name]++
		}
		d, f := escapeDiagnostic(ex.of(d))
		hcl.NewDiagnosticTextWriter(w, f, width, color).WriteDiagnostic(d)
	}
	for _, name := range cut {
		fmt.Fprintf(w, "And %s in %s not shown (validate --json lists them all).\n\n",
			Plural(more[name], "more diagnostic", "more diagnostics"), name)
	}
}

// escapeDiagnostic is d with its summary, detail and file name escaped
// for a terminal (lang.EscapeControl): they quote values and names from
// the file, or are the name of a file someone else made. The excerpt of
// the file is escaped as it is made (excerpts).
func escapeDiagnostic(d *hcl.Diagnostic, files map[string]*hcl.File) (*hcl.Diagnostic, map[string]*hcl.File) {
	c := *d
	c.Summary, c.Detail = lang.EscapeControlLine(d.Summary), lang.EscapeControl(d.Detail)
	if d.Subject != nil {
		if name := lang.EscapeControlLine(d.Subject.Filename); name != d.Subject.Filename {
			files = map[string]*hcl.File{name: files[d.Subject.Filename]}
			sub := *d.Subject
			sub.Filename = name
			c.Subject = &sub
			if d.Context != nil {
				ctx := *d.Context
				ctx.Filename = name
				c.Context = &ctx
			}
		}
	}
	return &c, files
}

// excerpts give HCL's text writer, one diagnostic at a time, a file that
// holds only the lines the diagnostic shows (after as many empty lines as
// come before them, so that line numbers stay right). The writer scans its
// file from the start for each diagnostic; with excerpts, printing many
// diagnostics of a large file costs the lines they show, not the file's
// size times their number.
type excerpts struct {
	files map[string]*hcl.File
	lines map[string][]int // the byte offset of each line's start, by file
}

func (e *excerpts) of(d *hcl.Diagnostic) (*hcl.Diagnostic, map[string]*hcl.File) {
	if d.Subject == nil {
		return d, e.files
	}
	name := d.Subject.Filename
	f := e.files[name]
	if f == nil || f.Bytes == nil {
		return d, e.files
	}
	src := f.Bytes
	starts, ok := e.lines[name]
	if !ok {
		starts = lineStarts(src)
		e.lines[name] = starts
	}
	snip := *d.Subject
	if d.Context != nil && d.Context.Filename == name {
		snip = hcl.RangeOver(snip, *d.Context)
	}
	first, last := snip.Start.Line, snip.End.Line
	if first < 1 || last < first || last > len(starts) || starts[first-1] > snip.Start.Byte || snip.End.Byte > len(src) {
		return d, nil // a range that does not fit the file: no excerpt
	}
	// The excerpt: as many empty lines as come before the snippet, then
	// its lines, each narrowed to maxExcerptLine around the subject when
	// it is longer (a minified document), the cuts marked with "…".
	text := make([]byte, 0, first-1+(last-first+1)*(maxExcerptLine+8))
	for range first - 1 {
		text = append(text, '\n')
	}
	var segs []segment
	for line := first; line <= last; line++ {
		from, to := starts[line-1], len(src)
		if line < len(starts) {
			to = starts[line] // this line's newline included
		}
		lo, hi := from, to
		if to-from > maxExcerptLine {
			at := max(from, min(d.Subject.Start.Byte, to)) // the subject, or the nearest end of the line
			lo = max(from, at-maxExcerptLine/2)
			hi = min(to, lo+maxExcerptLine)
			for lo > from && !utf8.RuneStart(src[lo]) {
				lo--
			}
			for hi < to && !utf8.RuneStart(src[hi]) {
				hi++
			}
		}
		if lo > from {
			text = append(text, "…"...)
		}
		text, segs = appendEscaped(text, segs, src, lo, hi)
		if hi < to {
			text = append(text, "…\n"...)
		}
	}
	c := *d
	c.Subject = remap(d.Subject, segs)
	c.Context = remap(d.Context, segs)
	ef := &hcl.File{Body: f.Body, Bytes: text, Nav: fixedNav(lang.EscapeControlLine(contextOf(f, d.Subject.Start.Byte)))}
	return &c, map[string]*hcl.File{name: ef}
}

// segment is a part of a file copied into an excerpt: bytes [orig, end)
// of the file are at offset at of the excerpt. An escaped segment is one
// character written as an escape of size bytes (lang.EscapeControl).
type segment struct {
	orig, end, at int
	escaped       int
}

// appendEscaped copies src[lo:hi] to the excerpt text, its control
// characters and invalid bytes escaped (a file's bytes must not act on
// the terminal), and adds its segments.
func appendEscaped(text []byte, segs []segment, src []byte, lo, hi int) ([]byte, []segment) {
	e := lang.EscapeControlOffsets(src[lo:hi])
	at := len(text)
	text = append(text, e.Text...)
	start := lo // of the segment of plain bytes under way
	for p := lo; p < hi; {
		_, size := utf8.DecodeRune(src[p:hi])
		o, next := e.Offset(p-lo), e.Offset(p+size-lo)
		if next-o == size {
			p += size
			continue
		}
		if p > start {
			segs = append(segs, segment{orig: start, end: p, at: at + e.Offset(start-lo)})
		}
		segs = append(segs, segment{orig: p, end: p + size, at: at + o, escaped: next - o})
		p += size
		start = p
	}
	if hi > start || len(segs) == 0 {
		segs = append(segs, segment{orig: start, end: hi, at: at + e.Offset(start-lo)})
	}
	return text, segs
}

// remap moves a range's byte offsets from the file to the excerpt. An
// offset in a part that was cut goes to the nearest kept byte, one inside
// an escaped character to the escape's start.
func remap(r *hcl.Range, segs []segment) *hcl.Range {
	if r == nil {
		return nil
	}
	move := func(p int) int {
		for _, s := range segs {
			switch {
			case p < s.orig:
				return s.at
			case p <= s.end && s.escaped > 0:
				if p == s.orig {
					return s.at
				}
				return s.at + s.escaped
			case p <= s.end:
				return s.at + p - s.orig
			}
		}
		last := segs[len(segs)-1]
		if last.escaped > 0 {
			return last.at + last.escaped
		}
		return last.at + last.end - last.orig
	}
	c := *r
	c.Start.Byte = move(r.Start.Byte)
	c.End.Byte = move(r.End.Byte)
	return &c
}

// contextOf is what HCL's writer puts after "on FILE line N": the block
// around offset ("in step "a"").
func contextOf(f *hcl.File, offset int) string {
	if cs, ok := f.Nav.(interface{ ContextString(int) string }); ok {
		return cs.ContextString(offset)
	}
	return ""
}

// fixedNav answers the text writer's ContextString for an excerpt with
// the context found in the whole file.
type fixedNav string

func (n fixedNav) ContextString(int) string { return string(n) }

// lineStarts returns the byte offset at which each line of src starts.
func lineStarts(src []byte) []int {
	starts := []int{0}
	for i, b := range src {
		if b == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// JSON output of validate (docs/design.md, "Commands"), the shape of Terraform's validate -json,
// lives in package diagjson, which the thinker uses too.

// JSONFormatVersion is the format_version of the JSON documents flowctl
// writes (validate --json, plan files).
const JSONFormatVersion = diagjson.FormatVersion

type (
	jsonValidate   = diagjson.Validate
	jsonDiagnostic = diagjson.Diagnostic
)

func newJSONValidate(files map[string]*hcl.File, diags hcl.Diagnostics) jsonValidate {
	return diagjson.New(files, diags)
}

// WriteJSON prints v as indented JSON.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// CountDiags returns the numbers of errors and warnings.
func CountDiags(diags hcl.Diagnostics) (errs, warns int) {
	for _, d := range diags {
		if d.Severity == hcl.DiagError {
			errs++
		} else {
			warns++
		}
	}
	return
}

// Plural is "1 run" or "2 runs".
func Plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// ErrReported is the error of a view that has printed why the command
// failed: the command ends with exit code 1 and prints nothing more.
var ErrReported = errors.New("exit status 1")

// Failure is the error of a view that the command reports as one
// diagnostic without a source range.
type Failure struct{ Summary, Detail string }

func (f Failure) Error() string { return f.Detail }

// JSONDiagnostics is what a command run with --json prints on standard
// output when it ends with an error: diagnostics in the shape of validate
// --json's.
type JSONDiagnostics struct {
	JSONHead
	Diagnostics []diagjson.Diagnostic `json:"diagnostics"`
}

func newJSONDiagnostics(files map[string]*hcl.File, diags hcl.Diagnostics) JSONDiagnostics {
	return JSONDiagnostics{JSONHead: JSONHead{"diagnostics", JSONTime(time.Now())}, Diagnostics: diagjson.New(files, diags).Diagnostics}
}

// WriteDiagnosticsJSON prints diagnostics as one JSON object on one line,
// so that it can follow a stream of JSON events.
func WriteDiagnosticsJSON(w io.Writer, files map[string]*hcl.File, diags hcl.Diagnostics) {
	b, _ := json.Marshal(newJSONDiagnostics(files, diags))
	w.Write(append(b, '\n'))
}
