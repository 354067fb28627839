package gorun

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// flowPrefix are the lines of the test flow file before the Go code: the
// code's line n is the file's line n+flowOffset.
const flowPrefix = `block "demo" {
  runtime = "go"
  input "x" {
    type    = any
    default = null
  }
  output "y" {
    type = any
  }
  source = <<-GO
`

var flowOffset = strings.Count(flowPrefix, "\n")

// parseDef writes a flow file holding a go block with the code src
// (indented, in a heredoc) and decodes the block.
func parseDef(t testing.TB, src string) *lang.BlockDef {
	t.Helper()
	var b strings.Builder
	b.WriteString(flowPrefix)
	for _, l := range strings.Split(strings.TrimSuffix(src, "\n"), "\n") {
		if l == "" {
			b.WriteString("\n")
			continue
		}
		b.WriteString("    " + strings.ReplaceAll(l, "${", "$${") + "\n")
	}
	b.WriteString("  GO\n}\n")
	path := filepath.Join(t.TempDir(), "flow.hcl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	f, diags := hclsyntax.ParseConfig([]byte(b.String()), path, hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	content, diags := f.Body.Content(&hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "block", LabelNames: []string{"name"}}}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	def, diags := lang.DecodeBlockDef(content.Blocks[0])
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if def.SourceLine != flowOffset+1 {
		t.Fatalf("SourceLine = %d, want %d", def.SourceLine, flowOffset+1)
	}
	return def
}

// newCall makes a call of the block with input x (cty.NilVal: null) and
// the declared output y of type any.
func newCall(t testing.TB, def *lang.BlockDef, x cty.Value) *blocks.Call {
	t.Helper()
	b, diags := blocks.FromDef(def)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if x == cty.NilVal {
		x = cty.NullVal(cty.DynamicPseudoType)
	}
	return &blocks.Call{Block: b, Inputs: map[string]cty.Value{"x": x}, Outputs: def.Outputs, Step: "demo"}
}

// code wraps a body of Execute into a block's code, importing context and
// up to two more packages: func Execute is on line execLine of the code and
// the body starts on line bodyLine.
func code(imports []string, body string) string {
	var b strings.Builder
	b.WriteString("package block\n\nimport (\n\t\"context\"\n")
	for i := 0; i < 2; i++ {
		if i < len(imports) {
			b.WriteString("\t\"" + imports[i] + "\"\n")
		} else {
			b.WriteString("\n")
		}
	}
	b.WriteString(")\nfunc Execute(ctx context.Context, input map[string]any) (map[string]any, error) {\n")
	b.WriteString(body)
	b.WriteString("\n}\n")
	return b.String()
}

const (
	execLine = 8
	bodyLine = 9
)

func run(t testing.TB, e *Executor, def *lang.BlockDef, x cty.Value) (cty.Value, error) {
	t.Helper()
	res, err := e.Execute(context.Background(), newCall(t, def, x))
	if err != nil {
		return cty.NilVal, err
	}
	return res.Outputs["y"], nil
}

func readBytes(path string) ([]byte, error) { return os.ReadFile(path) }
