package lang

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// bigFlow is a flow of n steps with what the cutter must see past:
// comments, heredocs holding lines that look like blocks, strings with
// braces and interpolations over several lines.
func bigFlow(n int) string {
	var b strings.Builder
	b.WriteString("# a flow\nflow \"big\" {}\n\n/* step \"not\" {\n}\n*/\n")
	for i := range n {
		fmt.Fprintf(&b, `
// step %d
step "s%d" {
  use   = "value"
  value = "{ ${i > 0 ? "x" : "}"} ${
    %d
  }"
  note = <<-EOT
step "inside_%d" {
}
  EOT
}
`, i, i, i, i)
	}
	return b.String()
}

// TestParseSplit: a large file parsed in pieces gives what a parse of the
// whole file gives, and a file the cutter misjudges, or with an error,
// is parsed whole.
func TestParseSplit(t *testing.T) {
	for _, n := range []int{10, 3000} {
		src := []byte(bigFlow(n))
		whole, wdiags := hclsyntax.ParseConfig(src, "big.flow.hcl", hcl.InitialPos)
		if wdiags.HasErrors() {
			t.Fatal(wdiags)
		}
		_, starts := checkNesting(src, "big.flow.hcl")
		split, sdiags, ok := parseSplit(src, "big.flow.hcl", starts)
		if n == 10 {
			if ok {
				t.Errorf("a small file was split")
			}
			continue
		}
		if !ok || len(sdiags) > 0 {
			t.Fatalf("not split: %v %v", ok, sdiags)
		}
		wb, sb := whole.Body.(*hclsyntax.Body), split.Body.(*hclsyntax.Body)
		if len(sb.Blocks) != n+1 {
			t.Fatalf("%d blocks", len(sb.Blocks))
		}
		if !reflect.DeepEqual(wb, sb) {
			for i := range wb.Blocks {
				if !reflect.DeepEqual(wb.Blocks[i], sb.Blocks[i]) {
					t.Fatalf("block %d differs: %v / %v", i, wb.Blocks[i].DefRange(), sb.Blocks[i].DefRange())
				}
			}
			t.Fatalf("bodies differ: %v %v / %v %v", wb.SrcRange, wb.EndRange, sb.SrcRange, sb.EndRange)
		}
		// The navigation names the block around an offset of a late piece.
		off := sb.Blocks[n].Body.SrcRange.Start.Byte
		if got := split.Nav.(interface{ ContextString(int) string }).ContextString(off); got != fmt.Sprintf(`step "s%d"`, n-1) {
			t.Errorf("context %q", got)
		}
	}

	// An error anywhere: the whole file is parsed, so diagnostics are
	// those of a whole parse.
	src := []byte(bigFlow(3000) + "\nstep \"broken\" {\n  value = (\n}\n")
	_, starts := checkNesting(src, "big.flow.hcl")
	if _, _, ok := parseSplit(src, "big.flow.hcl", starts); ok {
		t.Errorf("a file with an error was parsed in pieces")
	}
	p := NewParser()
	f, diags := p.ParseSource(src, "big.flow.hcl")
	wf, wdiags := hclsyntax.ParseConfig(src, "big.flow.hcl", hcl.InitialPos)
	if diags.Error() != wdiags.Error() || !reflect.DeepEqual(f.Body, wf.Body) {
		t.Errorf("ParseSource differs from a whole parse:\n%v\n%v", diags, wdiags)
	}
}
