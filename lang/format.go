package lang

import (
	"bytes"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
)

// Format returns src in canonical HCL style. A file with syntax errors is
// not formatted: its diagnostics are returned instead; nor is one that is
// not UTF-8 text or nests too deep (see ParseSource).
func Format(src []byte, filename string) ([]byte, hcl.Diagnostics) {
	if d, _ := checkSource(src, filename); d != nil {
		return nil, hcl.Diagnostics{d}
	}
	if _, diags := hclsyntax.ParseConfig(src, filename, hcl.InitialPos); diags.HasErrors() {
		return nil, diags
	}
	return hclwrite.Format(src), nil
}

// Formatted is a file's content before and after lang.Format.
type Formatted struct {
	Name          string
	Before, After []byte
	// Stdin: the content came from standard input (the path -), and is
	// listed whether or not it changed.
	Stdin bool
}

// Changed says whether formatting changed the content.
func (f Formatted) Changed() bool { return !bytes.Equal(f.Before, f.After) }
