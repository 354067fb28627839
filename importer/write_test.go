package importer

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
)

// TestWriteFileDoesNotReplace: without force the move into place fails on
// a file that exists (one made after Write checked), leaving it and no
// temporary file; with force it replaces it.
func TestWriteFileDoesNotReplace(t *testing.T) {
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	name := filepath.Join("blocks", "b.block.hcl")
	os.MkdirAll(filepath.Join(dir, "blocks"), 0o755)
	os.WriteFile(filepath.Join(dir, name), []byte("theirs"), 0o644)
	if err := writeFile(root, name, []byte("ours"), false); !errors.Is(err, fs.ErrExist) {
		t.Errorf("writeFile over a file: %v, want fs.ErrExist", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, name)); string(b) != "theirs" {
		t.Errorf("the file was replaced: %q", b)
	}
	if err := writeFile(root, name, []byte("ours"), true); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, name)); string(b) != "ours" {
		t.Errorf("with force: %q", b)
	}
	if err := writeFile(root, "new.flow.hcl", []byte("new"), false); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{dir, filepath.Join(dir, "blocks")} {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			if filepath.Ext(e.Name()) == ".tmp" {
				t.Errorf("a temporary file is left: %s", e.Name())
			}
		}
	}
}

func TestFileExistsSummary(t *testing.T) {
	if d := refused("x", "y"); d.Summary != FileExistsSummary {
		t.Errorf("refused's summary %q is not FileExistsSummary %q", d.Summary, FileExistsSummary)
	}
}

// A text of several lines that ends with a newline is a heredoc whose
// closing marker ends its line, also inside an expression: the text of an
// n8n condition's left value followed by its right value in a call
// (oxbshw+ultimate-n8n-ai-workflows/workflows__ai-agents__0569_Executeworkflow_Telegram_Update_Triggered.json,
// whose flow did not parse).
func TestHeredocInsideExpression(t *testing.T) {
	text := Template([]TPart{{Expr: Ref("step", "trigger", "text")}, {Lit: "\n"}}, false)
	e := Join("[for item in [1] : item if startswith(", text, `, "/")]`)
	f := hclwrite.NewEmptyFile()
	f.Body().SetAttributeRaw("x", Clone(e))
	if _, d := hclsyntax.ParseConfig(hclwrite.Format(f.Bytes()), "x.hcl", hcl.InitialPos); d.HasErrors() {
		t.Fatalf("%v\n%s", d, f.Bytes())
	}
}
