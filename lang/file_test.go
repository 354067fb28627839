package lang

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// TestDecodeManySteps: a flow with enough steps to be decoded on every
// processor gives the steps and the diagnostics, in source order, that
// decoding them one by one gives.
func TestDecodeManySteps(t *testing.T) {
	var b strings.Builder
	b.WriteString("flow \"f\" {}\ninput \"n\" {\n  type = number\n}\nlocals {\n  l = input.n\n}\noutput \"o\" {\n  value = step.s0.value\n}\n")
	for i := range 3 * parallelStepsMin {
		switch i % 7 {
		case 3:
			fmt.Fprintf(&b, "step \"s%d\" {\n  use = 1\n}\n", i) // Invalid use
		case 5:
			fmt.Fprintf(&b, "step \"s%d\" {\n  use = \"value\"\n  value = %d\n  parallelism = 2\n}\n", i, i) // without for_each
		default:
			fmt.Fprintf(&b, "step \"s%d\" {\n  use = \"value\"\n  value = %d\n}\n", i, i)
		}
	}
	f, diags := hclsyntax.ParseConfig([]byte(b.String()), "f.flow.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	file, diags := DecodeFlowFile(f, "f.flow.hcl")

	content, _ := f.Body.Content(flowFileSchema)
	var want []*Step
	var wantDiags hcl.Diagnostics
	for _, blk := range content.Blocks {
		if blk.Type == "step" {
			s, d := decodeStepBlock(blk)
			want = append(want, s)
			wantDiags = append(wantDiags, d...)
		}
	}
	if len(file.Steps) != 3*parallelStepsMin || !reflect.DeepEqual(file.Steps, want) {
		t.Errorf("%d steps, not those decoded one by one", len(file.Steps))
	}
	if len(wantDiags) == 0 || !reflect.DeepEqual(diags, wantDiags) {
		t.Errorf("%d diagnostics, want the %d of decoding one by one, in order", len(diags), len(wantDiags))
	}

	// Consuming the tree decodes the same, and leaves the tree without
	// the blocks.
	consumed, cdiags := ConsumeFlowFile(f, "f.flow.hcl")
	if !reflect.DeepEqual(consumed, file) || !reflect.DeepEqual(cdiags, diags) {
		t.Errorf("ConsumeFlowFile: %d steps, %d inputs, %d diagnostics; want what DecodeFlowFile gives", len(consumed.Steps), len(consumed.Inputs), len(cdiags))
	}
	if n := len(f.Body.(*hclsyntax.Body).Blocks); n != 0 {
		t.Errorf("the consumed tree still has %d blocks", n)
	}
}
