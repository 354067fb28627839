package lang

import (
	"bytes"
	"os"
	"strconv"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// Parser reads HCL files and keeps their sources, so that diagnostics can be
// printed with snippets of the files they point into.
type Parser struct {
	p *hclparse.Parser
	// released are the files whose syntax trees Release dropped.
	released map[string]bool
	// pinned are the sources of a pinned version by absolute path, and
	// pinnedDirs the directories it covers (pin.go).
	pinned     map[string][]byte
	pinnedDirs map[string]bool
}

// NewParser returns an empty Parser.
func NewParser() *Parser {
	return &Parser{p: hclparse.NewParser()}
}

// ParseFile reads and parses the named file. A file that was parsed before is
// returned from the parser's cache.
func (p *Parser) ParseFile(filename string) (*hcl.File, hcl.Diagnostics) {
	if f, ok := p.p.Files()[filename]; ok && !p.released[filename] {
		return f, nil
	}
	src, err := p.readSource(filename)
	if err != nil {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Failed to read file",
			Detail:   "The file " + quote(filename) + " could not be read: " + unwrapPathError(err) + ".",
		}}
	}
	return p.ParseSource(src, filename)
}

// ParseSource parses src as the native-syntax HCL file filename. The source is
// kept for diagnostics even when it has syntax errors. A source that is not
// UTF-8 text (a binary file, another encoding) gets one diagnostic at its
// first bad byte and is not parsed: the lexer would report every bad byte,
// which for a binary file is a diagnostic every few bytes. Nor is a source
// nested deeper than MaxNesting (see checkNesting).
func (p *Parser) ParseSource(src []byte, filename string) (*hcl.File, hcl.Diagnostics) {
	d, starts := checkSource(src, filename)
	if d != nil {
		f := &hcl.File{Body: hcl.EmptyBody(), Bytes: src}
		if _, known := p.p.Files()[filename]; !known {
			p.p.AddFile(filename, f)
		}
		return f, hcl.Diagnostics{d}
	}
	if f := p.p.Files()[filename]; f != nil && !p.released[filename] {
		return f, nil // parsed before, as hclparse does
	}
	f, diags, ok := parseSplit(src, filename, starts)
	if !ok {
		f, diags = hclsyntax.ParseConfig(src, filename, hcl.InitialPos)
	}
	if f == nil {
		f = &hcl.File{Bytes: src}
	}
	if _, known := p.p.Files()[filename]; !known || p.released[filename] {
		p.p.AddFile(filename, f)
		delete(p.released, filename)
	}
	return f, diags
}

// KeepSource keeps src as the text of filename, a file that is not HCL (a
// JSON input file), for the snippets of diagnostics about it.
func (p *Parser) KeepSource(filename string, src []byte) {
	if _, known := p.p.Files()[filename]; !known {
		p.p.AddFile(filename, &hcl.File{Body: hcl.EmptyBody(), Bytes: src})
	}
}

// checkSource is what ParseSource checks before it parses: that src is
// UTF-8 text (checkEncoding) nested no deeper than the parser bears
// (checkNesting), which also finds where top-level items start.
func checkSource(src []byte, filename string) (*hcl.Diagnostic, []int) {
	if d := checkEncoding(src, filename); d != nil {
		return d, nil
	}
	return checkNesting(src, filename)
}

// Release drops the syntax trees of the files the parser has read and
// keeps what diagnostics need: each file's source and an outline of its
// top-level blocks, which names the block around a line ("in step "a"").
// A compiled program keeps only the expressions it evaluates, so after
// Release a program of ten thousand steps holds half the memory. A file
// asked for again is parsed again.
func (p *Parser) Release() {
	for name := range p.p.Files() {
		p.ReleaseFile(name)
	}
}

// ReleaseFile is Release for one file. The file's tree is then the
// caller's alone (ConsumeFlowFile).
func (p *Parser) ReleaseFile(name string) {
	f := p.p.Files()[name]
	if f == nil || p.released[name] {
		return
	}
	if p.released == nil {
		p.released = map[string]bool{}
	}
	p.p.AddFile(name, &hcl.File{Body: hcl.EmptyBody(), Bytes: f.Bytes, Nav: newOutline(f)})
	p.released[name] = true
}

// outline is a released file's navigation: its top-level blocks, in
// source order, as hclsyntax's navigation finds them.
type outline []outlineBlock

type outlineBlock struct {
	start, end int    // byte offsets of the block
	header     string // type and quoted labels: step "a"
}

func newOutline(f *hcl.File) outline {
	body, ok := f.Body.(*hclsyntax.Body)
	if !ok {
		return nil
	}
	o := make(outline, len(body.Blocks))
	for i, b := range body.Blocks {
		h := b.Type
		for _, l := range b.Labels {
			h += " " + strconv.Quote(l)
		}
		r := b.Range()
		o[i] = outlineBlock{start: r.Start.Byte, end: r.End.Byte, header: h}
	}
	return o
}

func (o outline) block(offset int) *outlineBlock {
	for i := range o {
		if offset >= o[i].start && offset < o[i].end {
			return &o[i]
		}
	}
	return nil
}

// ContextString is what hcl.NewDiagnosticTextWriter prints after "on FILE
// line N,": the block around offset.
func (o outline) ContextString(offset int) string {
	if b := o.block(offset); b != nil {
		return b.header
	}
	return ""
}

// Files returns every file the parser has read, by name, for
// hcl.NewDiagnosticTextWriter and for source snippets.
func (p *Parser) Files() map[string]*hcl.File {
	return p.p.Files()
}

// PathErrorText is the reason of a file system error without the Go
// operation and path around it: "no such file or directory".
func PathErrorText(err error) string { return unwrapPathError(err) }

func unwrapPathError(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}

// checkEncoding reports the first byte of src that is not part of a UTF-8
// character, or a NUL byte, which no text file holds.
func checkEncoding(src []byte, filename string) *hcl.Diagnostic {
	bad := -1
	if !utf8.Valid(src) {
		for i := 0; i < len(src); {
			r, n := utf8.DecodeRune(src[i:])
			if r == utf8.RuneError && n <= 1 {
				bad = i
				break
			}
			i += n
		}
	}
	if nul := bytes.IndexByte(src, 0); nul >= 0 && (bad < 0 || nul < bad) {
		bad = nul
	}
	if bad < 0 {
		return nil
	}
	pos := posOf(src, bad)
	end := pos
	end.Byte++
	end.Column++
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Invalid character encoding",
		Detail:   "The file is not UTF-8 text: this byte is not part of a UTF-8 character (or is a NUL). Flow and block files must be UTF-8; check the editor's encoding, or that the file is the one you mean.",
		Subject:  &hcl.Range{Filename: filename, Start: pos, End: end},
	}
}
