package evaluate

import (
	"testing"

	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// TestSchemasByCaseBounded: a json_schema score whose schema differs by
// case (schema = row.schema) keeps at most maxSchemas of them resolved,
// whatever the size of the dataset, and still resolves every one.
func TestSchemasByCaseBounded(t *testing.T) {
	x := &scorer{def: &lang.EvalScore{Name: "s", Kind: lang.ScoreJSONSchema, DeclRange: hcl.Range{Filename: "/p/x.eval.hcl"}}}
	for i := range 1000 {
		v := cty.ObjectVal(map[string]cty.Value{"type": cty.StringVal("number"), "maximum": cty.NumberIntVal(int64(i))})
		if _, err := x.resolveSchema(v); err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	x.schemas.Range(func(any, any) bool { n++; return true })
	if n > maxSchemas {
		t.Errorf("%d schemas kept, at most %d", n, maxSchemas)
	}
}
