package lang

import (
	"os"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
)

// Parser reads HCL files and keeps their sources, so that diagnostics can be
// printed with snippets of the files they point into.
type Parser struct {
	p *hclparse.Parser
}

// NewParser returns an empty Parser.
func NewParser() *Parser {
	return &Parser{p: hclparse.NewParser()}
}

// ParseFile reads and parses the named file. A file that was parsed before is
// returned from the parser's cache.
func (p *Parser) ParseFile(filename string) (*hcl.File, hcl.Diagnostics) {
	if f, ok := p.p.Files()[filename]; ok {
		return f, nil
	}
	src, err := os.ReadFile(filename)
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
// kept for diagnostics even when it has syntax errors.
func (p *Parser) ParseSource(src []byte, filename string) (*hcl.File, hcl.Diagnostics) {
	f, diags := p.p.ParseHCL(src, filename)
	if f == nil {
		f = &hcl.File{Bytes: src}
	}
	if _, known := p.p.Files()[filename]; !known {
		p.p.AddFile(filename, f)
	}
	return f, diags
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
