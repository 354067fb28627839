package lang

import (
	"testing"

	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/zclconf/go-cty/cty"
)

// AppendTypeString must write exactly what typeexpr.TypeString does: cache
// keys stored before it are built from that.
func TestAppendTypeString(t *testing.T) {
	types := []cty.Type{
		cty.String, cty.Number, cty.Bool, cty.DynamicPseudoType,
		cty.List(cty.String), cty.Set(cty.Number), cty.Map(cty.List(cty.Bool)),
		cty.EmptyObject, cty.EmptyTuple,
		cty.Object(map[string]cty.Type{"id": cty.Number, "name": cty.String, "a_b-c": cty.Bool, "_x": cty.DynamicPseudoType}),
		cty.Object(map[string]cty.Type{"with space": cty.String, "1st": cty.Number, "héllo": cty.String, "-dash": cty.Bool, "": cty.String}),
		cty.Tuple([]cty.Type{cty.String, cty.Object(map[string]cty.Type{"k": cty.List(cty.Number)}), cty.Map(cty.DynamicPseudoType)}),
		cty.List(cty.Object(map[string]cty.Type{"nested": cty.Tuple([]cty.Type{cty.Set(cty.String)})})),
	}
	for _, ty := range types {
		want := typeexpr.TypeString(ty)
		if got := string(AppendTypeString([]byte("x:"), ty)); got != "x:"+want {
			t.Errorf("AppendTypeString(%#v) = %q, want %q", ty, got[2:], want)
		}
	}
}
