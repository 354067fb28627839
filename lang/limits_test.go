package lang

import (
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// TestPriorityAttr: a trigger's priority is a whole number, negative
// ones too; anything else is an error at the value.
func TestPriorityAttr(t *testing.T) {
	for src, want := range map[string]int{"priority = 5": 5, "priority = -2": -2, "priority = 1.5": 0, `priority = "high"`: 0} {
		f, diags := hclsyntax.ParseConfig([]byte(src), "t.hcl", hcl.InitialPos)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		attrs, _ := f.Body.JustAttributes()
		got, diags := PriorityAttr(attrs["priority"])
		bad := src == "priority = 1.5" || src == `priority = "high"`
		if got != want || diags.HasErrors() != bad || bad && diags[0].Subject.Start.Column != 12 {
			t.Errorf("%s = %d, %v", src, got, diags)
		}
	}
}
