package lang

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// TestParseGuards: a file that is not UTF-8 text, or that nests deeper
// than MaxNesting, gets one diagnostic at the place and is not parsed.
func TestParseGuards(t *testing.T) {
	deep := "locals {\n  x = " + strings.Repeat("[", MaxNesting+10) + "\n}\n"
	deepString := "locals {\n  x = \"" + strings.Repeat("${\"", MaxNesting) + "\n}\n"
	for _, c := range []struct {
		name, src, summary string
		line, column       int
	}{
		{"latin-1", "flow \"f\" {\n  description = \"caf\xe9\"\n}\n", "Invalid character encoding", 2, 21},
		{"nul", "flow \"f\" {}\n\x00\x01", "Invalid character encoding", 2, 1},
		{"binary", "\x7fELF\x02\x01\x01\x00", "Invalid character encoding", 1, 8},
		{"brackets", deep, "Nesting too deep", 2, 7 + MaxNesting - 1},
		{"templates", deepString, "Nesting too deep", 2, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, diags := NewParser().ParseSource([]byte(c.src), "f.flow.hcl")
			if len(diags) != 1 || diags[0].Summary != c.summary || diags[0].Subject == nil {
				t.Fatalf("diagnostics: %v", diags)
			}
			if s := diags[0].Subject.Start; s.Line != c.line || (c.column > 0 && s.Column != c.column) {
				t.Errorf("at %d:%d, want %d:%d", s.Line, s.Column, c.line, c.column)
			}
			if f == nil || string(f.Bytes) != c.src {
				t.Error("the source is not kept for snippets")
			}
		})
	}
	// Ordinary nesting, strings with braces, heredocs and comments pass.
	ok := `flow "f" {}

locals {
  # a comment with [[[[ brackets ((((
  /* and {{{{ here */
  a = [[[["x"]]]]
  b = "text with { and [ and ${upper("y")} and $${not} %%{not}"
  c = <<-EOT
    a heredoc with { and [ and ${local.a[0][0][0][0]}
    EOT
  d = { x = { y = { z = [1, (2 + 3)] } } }
}
`
	if _, diags := NewParser().ParseSource([]byte(ok), "ok.flow.hcl"); diags.HasErrors() {
		t.Errorf("an ordinary file: %s", diags.Error())
	}
	src := "locals {\n  x = " + strings.Repeat("[", MaxNesting-2) + strings.Repeat("]", MaxNesting-2) + "\n}\n"
	if _, diags := NewParser().ParseSource([]byte(src), "ok.flow.hcl"); diags.HasErrors() {
		t.Errorf("nesting within the limit: %s", diags.Error())
	}
}

// TestRelease: a released file keeps its source and names the block
// around each offset as the syntax tree did; asked for again, it is
// parsed again.
func TestRelease(t *testing.T) {
	src := []byte("flow \"f\" {}\n\nstep \"a\" {\n  use   = \"value\"\n  value = 1\n}\n\nlocals {\n  x = 2\n}\n")
	path := filepath.Join(t.TempDir(), "f.flow.hcl")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	p := NewParser()
	f, diags := p.ParseFile(path)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	type nav interface{ ContextString(int) string }
	var want []string
	for off := range src {
		want = append(want, f.Nav.(nav).ContextString(off))
	}
	p.Release()
	r := p.Files()[path]
	p.Release() // changes nothing
	if p.Files()[path] != r {
		t.Error("a released file released again")
	}
	if string(r.Bytes) != string(src) {
		t.Fatalf("released source %q", r.Bytes)
	}
	for off := range src {
		if got := r.Nav.(nav).ContextString(off); got != want[off] {
			t.Errorf("offset %d: context %q, want %q", off, got, want[off])
		}
	}
	if want[20] != `step "a"` || want[len(src)-3] != "locals" {
		t.Errorf("contexts %q, %q", want[20], want[len(src)-3])
	}
	again, diags := p.ParseFile(path)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if body, ok := again.Body.(*hclsyntax.Body); !ok || len(body.Blocks) != 3 {
		t.Fatalf("parsed again: %#v", again.Body)
	}
	if p.Files()[path] != again {
		t.Error("the file parsed again is not the one kept for diagnostics")
	}
}
