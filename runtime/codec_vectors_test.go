package runtime

import (
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// TestDecodeVectorsAllocs: a step's outputs of typed lists of numbers (an
// embed step's vectors) are read back from the cache straight into their
// type, equal to what was stored, with a few allocations a number; cty's
// JSON decoder, reading token by token, made 23 (a cached ingest of
// 10,000 vectors of 768 numbers took a minute).
func TestDecodeVectorsAllocs(t *testing.T) {
	rows := make([]cty.Value, 8)
	for i := range rows {
		row := make([]cty.Value, 96)
		for j := range row {
			row[j] = cty.NumberFloatVal(float64(i*96+j) / 7)
		}
		rows[i] = cty.ListVal(row)
	}
	v := cty.ObjectVal(map[string]cty.Value{
		"vectors": cty.ListVal(rows), "dimensions": cty.NumberIntVal(96), "model": cty.StringVal("m"),
		"missing": cty.NullVal(cty.List(cty.Number)),
	})
	raw, err := EncodeValue(v)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeValue(raw)
	if err != nil {
		t.Fatal(err)
	}
	if !got.RawEquals(v) {
		t.Fatalf("decoded %#v\nwant %#v", got, v)
	}
	allocs := testing.AllocsPerRun(5, func() {
		if _, err := DecodeValue(raw); err != nil {
			t.Fatal(err)
		}
	})
	if perNumber := allocs / (8 * 96); perNumber > 12 {
		t.Errorf("%.1f allocations a number", perNumber)
	}
	t.Logf("%.1f allocations a number", allocs/(8*96))
}
