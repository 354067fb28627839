package runtime

import (
	"encoding/json"
	"strings"
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

// TestEncodeVectorsFloat32: an embed step's vectors (float32s) are
// stored in their float32 form, about half the size of doubles, read
// back equal, and read as the same numbers by a reader of plain JSON; a
// list with a number that is not a float32, or a null, still comes back
// exactly.
func TestEncodeVectorsFloat32(t *testing.T) {
	rows := make([]cty.Value, 4)
	for i := range rows {
		row := make([]cty.Value, 256)
		for j := range row {
			row[j] = cty.NumberFloatVal(float64(float32(i*256+j) / 255))
		}
		rows[i] = cty.ListVal(row)
	}
	v := cty.ObjectVal(map[string]cty.Value{
		"vectors": cty.ListVal(rows), "dimensions": cty.NumberIntVal(256),
		"set":  cty.SetVal([]cty.Value{cty.NumberIntVal(3), cty.NumberFloatVal(0.5)}),
		"hole": cty.ListVal([]cty.Value{cty.NumberIntVal(1), cty.NullVal(cty.Number)}),
	})
	raw, err := EncodeValue(v)
	if err != nil {
		t.Fatal(err)
	}
	if perNumber := float64(len(raw)) / (4 * 256); perNumber > 12 {
		t.Errorf("%.1f bytes a number: %.200s", perNumber, raw)
	}
	got, err := DecodeValue(raw)
	if err != nil || !got.RawEquals(v) {
		t.Fatalf("decoded %v %#v", err, got)
	}
	var plain struct {
		Value struct{ Vectors [][]float32 }
	}
	if err := json.Unmarshal(raw, &plain); err != nil || len(plain.Value.Vectors) != 4 {
		t.Fatalf("plain JSON: %v %v", err, plain)
	}
	for i, row := range plain.Value.Vectors {
		for j, x := range row {
			if x != float32(i*256+j)/255 {
				t.Fatalf("plain JSON: vector %d's %d is %v", i, j, x)
			}
		}
	}
	// Not float32s: doubles, exactly.
	w := cty.ObjectVal(map[string]cty.Value{"v": cty.ListVal([]cty.Value{cty.NumberFloatVal(0.5), cty.NumberFloatVal(0.1)})})
	raw, err = EncodeValue(w)
	if err != nil || strings.Contains(string(raw), "float32") {
		t.Fatalf("%v %s", err, raw)
	}
	if got, err := DecodeValue(raw); err != nil || !got.RawEquals(w) {
		t.Fatalf("decoded %v %#v", err, got)
	}
}
