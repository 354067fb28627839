package flowtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/lang"
)

const jsBlock = `block "%s" {
  runtime = "js"
  input "text" {
    type = string
  }
  output "text" {
    type = string
  }
  source = "function execute(input) { return { text: input.text } }"
}
`

// TestLoadBlocks: the blocks defined inline in flows, in blocks/ next to
// them and in block files of their own, each once (a block file a flow
// loads is not read again), ordered by file and position; a block that
// does not decode is a diagnostic.
func TestLoadBlocks(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	block := func(name string) string { return strings.Replace(jsBlock, "%s", name, 1) }
	write("app/main.flow.hcl", `flow "main" {}
`+block("inline_b")+block("inline_a"))
	write("app/blocks/shared.block.hcl", block("shared"))
	write("lib/loose.block.hcl", block("loose"))
	found, diags := LoadBlocks(lang.NewParser(), []string{dir}, nil, "")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var names []string
	for _, b := range found {
		names = append(names, b.Name)
	}
	if got := strings.Join(names, " "); got != "shared inline_b inline_a loose" {
		t.Errorf("blocks %q", got)
	}

	write("bad/bad.block.hcl", `block "bad" {`)
	if _, diags := LoadBlocks(lang.NewParser(), []string{filepath.Join(dir, "bad")}, nil, ""); !diags.HasErrors() {
		t.Error("a block file that does not parse gave no error")
	}
}
