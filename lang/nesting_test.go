package lang

import (
	"runtime"
	"strings"
	"testing"
)

// TestExpressionDepth: expressions whose syntax tree would be deep —
// chains of operators, conditionals, indexes and template directives,
// which brackets alone do not show — get one diagnostic before HCL parses
// them, without the memory a parse would take; ordinary and long but
// shallow expressions pass.
func TestExpressionDepth(t *testing.T) {
	attr := func(expr string) string { return "locals {\n  a = " + expr + "\n}\n" }
	n := 200_000
	for _, c := range []struct{ name, src string }{
		{"a million unary minuses", attr(strings.Repeat("-", 1_000_000) + "1")},
		{"spaced unary minuses", attr(strings.Repeat("- ", n) + "1")},
		{"nots", attr(strings.Repeat("!", n) + "true")},
		{"plus terms", attr("1" + strings.Repeat(" + 1", n))},
		{"minus terms", attr("1" + strings.Repeat("-1", n))},
		{"conditionals", attr(strings.Repeat("true ? 1 : ", 100_000) + "2")},
		{"and chain", attr("true" + strings.Repeat(" && true", n))},
		{"comparisons", attr("1" + strings.Repeat(" == 1", n))},
		{"indexes", attr("local.b" + strings.Repeat("[local.c]", n))},
		{"attributes after a call", attr("tolist([])" + strings.Repeat(".b", n))},
		{"splats", attr("local.b" + strings.Repeat("[*].b", n))},
		{"template ifs", attr(`"` + strings.Repeat("%{ if true }", n) + strings.Repeat("%{ endif }", n) + `"`)},
		{"in a block in a list", "step \"a\" {\n  use = \"value\"\n  value = [1, 2, {x = " + strings.Repeat("-", n) + "1}]\n}\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := []byte(c.src)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			f, diags := NewParser().ParseSource(src, "deep.flow.hcl")
			runtime.ReadMemStats(&after)
			if len(diags) != 1 || diags[0].Summary != "Expression too deep" || diags[0].Subject == nil {
				t.Fatalf("diagnostics: %v", diags)
			}
			if line := diags[0].Subject.Start.Line; line < 2 || line > 3 {
				t.Errorf("at line %d", line)
			}
			if f == nil || len(f.Bytes) != len(c.src) {
				t.Error("the source is not kept for snippets")
			}
			// The scan allocates next to nothing; a parse of these
			// takes hundreds of megabytes.
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
				t.Errorf("the check allocated %d KiB", alloc>>10)
			}
		})
	}
	for _, c := range []struct{ name, src string }{
		{"deep but within the bound", attr(strings.Repeat("-", MaxExpressionDepth-10) + "1")},
		{"a long list of sums", attr("[" + strings.Repeat("1 + 2 - 3 * 4, ", 20_000) + "5]")},
		{"many attributes", "locals {\n" + strings.Repeat("  a = 1 + 2 + 3 > 4 ? -1 : !true\n", 5_000) + "}\n"},
		{"many objects", attr("{\n" + strings.Repeat("  k = -1 + 2\n", 5_000) + "}")},
		{"sequential template ifs", attr(`"` + strings.Repeat("%{ if true }x%{ endif }", 5_000) + `"`)},
		{"names and numbers with dashes", attr("[" + strings.Repeat("a-b-c-d, 1e-5, 2.5e+3, ", 5_000) + "0]")},
		{"comments", "# - - - - " + strings.Repeat("- ", 5_000) + "\nlocals {\n  // " + strings.Repeat("!", 5_000) + "\n  a = 1 /* " + strings.Repeat("+ ", 5_000) + " */\n}\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if d, _ := checkNesting([]byte(c.src), "ok.flow.hcl"); d != nil {
				t.Errorf("refused: %s: %s", d.Summary, d.Detail)
			}
		})
	}
}
