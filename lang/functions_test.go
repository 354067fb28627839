package lang

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

func evalIn(t *testing.T, dir, src string) (cty.Value, hcl.Diagnostics) {
	t.Helper()
	expr, diags := hclsyntax.ParseExpression([]byte(src), "test.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("parse %s: %s", src, diags)
	}
	return expr.Value(&hcl.EvalContext{Functions: Functions(dir)})
}

func TestFunctions(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "note.txt"), []byte("héllo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bin.dat"), []byte{0xff, 0xfe}, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		expr string
		want cty.Value
	}{
		{`urlencode("a b&c=d")`, cty.StringVal("a+b%26c%3Dd")},
		{`base64encode("flowctl")`, cty.StringVal("Zmxvd2N0bA==")},
		{`base64decode("Zmxvd2N0bA==")`, cty.StringVal("flowctl")},
		{`sha256("abc")`, cty.StringVal("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")},
		{`length("héllo")`, cty.NumberIntVal(5)},
		{`length([1, 2, 3])`, cty.NumberIntVal(3)},
		{`length({ a = 1, b = "x" })`, cty.NumberIntVal(2)},
		{`replace("a-b-c", "-", "+")`, cty.StringVal("a+b+c")},
		{`replace("a1b22c", "/[0-9]+/", "_")`, cty.StringVal("a_b_c")},
		{`sum([1, 2, 3.5])`, cty.NumberFloatVal(6.5)},
		{`sum([])`, cty.NumberIntVal(0)},
		{`startswith("flowctl", "flow")`, cty.True},
		{`endswith("flowctl", "flow")`, cty.False},
		{`strcontains("flowctl", "owc")`, cty.True},
		{`upper(join(",", ["a", "b"]))`, cty.StringVal("A,B")},
		{`try(tonumber("x"), 7)`, cty.NumberIntVal(7)},
		{`can(regex("^[a-z]+$", "abc"))`, cty.True},
		{`file("note.txt")`, cty.StringVal("héllo\n")},
		{`jsondecode("{\"a\":[1,2]}").a[1]`, cty.NumberIntVal(2)},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			got, diags := evalIn(t, dir, tt.expr)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			if !got.RawEquals(tt.want) && !(got.Type() == cty.Number && got.Equals(tt.want).True()) {
				t.Fatalf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestFunctionErrors(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bin.dat"), []byte{0xff, 0xfe}, 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("no"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ expr, want string }{
		{`file("../x.txt")`, "must be relative to the flow's directory"},
		{`file("/etc/passwd")`, "must be relative to the flow's directory"},
		{`file("link.txt")`, "leads outside the flow's directory"},
		{`file("missing.txt")`, "no such file or directory"},
		{`file("bin.dat")`, "not valid UTF-8"},
		{`base64decode("%%%")`, "not valid Base64"},
		{`length(5)`, "must be a string, collection or structure"},
		{`sum("x")`, "list, set or tuple of numbers"},
		{`sum([1, null])`, "element 1 is null"},
		{`range(0, 100000)`, "more than 1024 values"},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			_, diags := evalIn(t, dir, tt.expr)
			if !diags.HasErrors() {
				t.Fatal("no error")
			}
			if !strings.Contains(diags.Error(), tt.want) {
				t.Fatalf("error %q does not mention %q", diags.Error(), tt.want)
			}
			if diags[0].Subject == nil || diags[0].Subject.Start.Line != 1 {
				t.Fatalf("error has no source range: %#v", diags[0])
			}
		})
	}
}

func TestSuggest(t *testing.T) {
	opts := []string{"method", "headers", "url", "max_bytes"}
	for given, want := range map[string]string{
		"mthod":    ` Did you mean "method"?`,
		"header":   ` Did you mean "headers"?`,
		"urll":     ` Did you mean "url"?`,
		"URL":      ` Did you mean "url"?`,
		"Max_Byte": ` Did you mean "max_bytes"?`,
		"zzzzzzzz": "",
		"x":        "",
	} {
		if got := Suggest(given, opts); got != want {
			t.Errorf("Suggest(%q) = %q, want %q", given, got, want)
		}
	}
}

func TestValidName(t *testing.T) {
	for name, want := range map[string]bool{
		"a": true, "_x": true, "word_count2": true,
		"": false, "Word": false, "2x": false, "a-b": false, "a.b": false,
	} {
		if ValidName(name) != want {
			t.Errorf("ValidName(%q) = %v", name, !want)
		}
	}
}

func TestFormatIdempotent(t *testing.T) {
	src := []byte("step \"a\" {\nuse=\"value\"\n  value = {x=1, longer=\"y\"}\n}\n")
	once, diags := Format(src, "a.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	twice, _ := Format(once, "a.hcl")
	if string(once) != string(twice) {
		t.Fatalf("not idempotent:\n%s\n---\n%s", once, twice)
	}
	if !strings.Contains(string(once), "  use   = \"value\"\n") {
		t.Fatalf("not aligned:\n%s", once)
	}
	if _, diags := Format([]byte("a = = 1"), "bad.hcl"); !diags.HasErrors() || diags[0].Subject.Start.Line != 1 {
		t.Fatalf("syntax error not reported with a range: %v", diags)
	}
}
