package inputs

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang/jsonval"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// TestInputFileReadIntoType: a list of records given with --input-file is
// read straight into the input's type — the value is the one converting
// what the JSON implies gives, and reading it costs about 11 allocations
// a record (reading it into a tuple of objects, then converting, cost 26:
// maps and objects for each record, made twice).
func TestInputFileReadIntoType(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "main.flow.hcl"), `flow "main" {}

input "items" {
  type = list(object({ id = number, name = string, tags = optional(list(string)) }))
}
`)
	prog, diags := compiler.Compile(filepath.Join(dir, "main.flow.hcl"), compiler.Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	const n = 2000
	var b strings.Builder
	b.WriteString(`{"items": [`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id": %d, "name": "item %d"}`, i, i)
	}
	b.WriteString("]}")
	src := []byte(b.String())

	read := func() cty.Value {
		given, diags := ReadJSON("items.json", src)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		vals, diags := prog.ResolveInputs(given)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		return vals["items"]
	}
	got := read()
	implied, err := jsonval.Decode(src)
	if err != nil {
		t.Fatal(err)
	}
	want, err := convert.Convert(implied.GetAttr("items"), prog.InputsByName["items"].Type.Type)
	if err != nil {
		t.Fatal(err)
	}
	if !got.RawEquals(want) {
		t.Fatalf("read %#v,\nwant %#v", got.Index(cty.NumberIntVal(0)), want.Index(cty.NumberIntVal(0)))
	}
	allocs := testing.AllocsPerRun(3, func() { read() }) / n
	t.Logf("%.2f allocations a record", allocs)
	if allocs > 13 {
		t.Errorf("reading the input file costs %.1f allocations a record, want at most 13", allocs)
	}
}
