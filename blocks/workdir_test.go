package blocks

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/flowctl/flowctl/lang"
)

// TestLoadWorkdir: the blocks of the current directory are the built-ins,
// those of its blocks directory and those its flow files define inline,
// which say which flow they are in.
func TestLoadWorkdir(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.Mkdir("blocks", 0o755)
	block := func(name string) string {
		return "block \"" + name + "\" {\n  runtime = \"js\"\n  source  = \"return {}\"\n}\n"
	}
	for name, src := range map[string]string{
		filepath.Join("blocks", "shared.block.hcl"): block("shared"),
		"a.flow.hcl": "flow \"a\" {}\n\n" + block("mine"),
	} {
		if err := os.WriteFile(name, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	all, diags := LoadWorkdir(lang.NewParser(), "blocks", nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	where := map[string]string{}
	for _, b := range all {
		where[b.Name] = b.InlineIn()
	}
	if _, ok := where["value"]; !ok {
		t.Error("no built-ins")
	}
	if in, ok := where["shared"]; !ok || in != "" {
		t.Errorf("shared: %q %v", in, ok)
	}
	if where["mine"] != "a.flow.hcl" {
		t.Errorf("mine is inline in %q, want a.flow.hcl", where["mine"])
	}
}
