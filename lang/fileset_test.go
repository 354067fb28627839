package lang

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// TestFileset: Terraform's fileset, the files under a directory whose
// relative paths match a glob, as a sorted set relative to the directory;
// a missing directory, a file given as the directory, a bad glob and a
// path that leaves the flow's directory are errors naming it.
func TestFileset(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"notes/b.md", "notes/a.md", "notes/sub/c.md", "notes/sub/d.txt", "notes/x.pdf", "top.md"} {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "notes", "dir.md"), 0o755); err != nil { // a directory is never matched
		t.Fatal(err)
	}
	set := func(s ...string) cty.Value {
		if len(s) == 0 {
			return cty.SetValEmpty(cty.String)
		}
		var vs []cty.Value
		for _, x := range s {
			vs = append(vs, cty.StringVal(x))
		}
		return cty.SetVal(vs)
	}
	for _, tt := range []struct {
		expr string
		want cty.Value
	}{
		{`fileset(".", "notes/*.md")`, set("notes/a.md", "notes/b.md")},
		{`fileset(".", "notes/**/*.md")`, set("notes/a.md", "notes/b.md", "notes/sub/c.md")},
		{`fileset("notes", "**/*.{md,pdf}")`, set("a.md", "b.md", "sub/c.md", "x.pdf")},
		{`fileset("notes", "[ab].md")`, set("a.md", "b.md")},
		{`fileset("notes/sub", "*")`, set("c.md", "d.txt")},
		{`fileset(".", "*.csv")`, set()},
		{`tolist(fileset(".", "**/*.md"))`, cty.ListVal([]cty.Value{
			cty.StringVal("notes/a.md"), cty.StringVal("notes/b.md"), cty.StringVal("notes/sub/c.md"), cty.StringVal("top.md"),
		})},
	} {
		got, diags := evalIn(t, dir, tt.expr)
		if diags.HasErrors() {
			t.Errorf("%s: %s", tt.expr, diags)
			continue
		}
		if !got.RawEquals(tt.want) {
			t.Errorf("%s = %#v, want %#v", tt.expr, got, tt.want)
		}
	}
	for _, tt := range []struct{ expr, want string }{
		{`fileset("gone", "*")`, `cannot read the directory "gone"`},
		{`fileset("top.md", "*")`, `"top.md" is a file, not a directory`},
		{`fileset(".", "notes/[a.md")`, `"notes/[a.md" is not a valid glob`},
		{`fileset("..", "*")`, `the path ".." must be relative to the flow's directory and stay inside it`},
	} {
		_, diags := evalIn(t, dir, tt.expr)
		if !diags.HasErrors() || !strings.Contains(diags.Error(), tt.want) {
			t.Errorf("%s: %v, want an error with %q", tt.expr, diags, tt.want)
		}
	}
	// A symbolic link leading outside the flow's directory is refused.
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.md"), []byte("s"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(dir, "notes", "link.md")); err != nil {
		t.Fatal(err)
	}
	if _, diags := evalIn(t, dir, `fileset(".", "notes/*.md")`); !diags.HasErrors() || !strings.Contains(diags.Error(), `"notes/link.md" leads outside the flow's directory`) {
		t.Errorf("a link outside: %v", diags)
	}
}
