package event

import (
	"fmt"
	"slices"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// TestLabel: an instance's key and label, as events and views name it.
func TestLabel(t *testing.T) {
	for _, c := range []struct {
		k           Key
		json        any
		str, label  string
		none        bool
		stepOfLabel string
	}{
		{NoKey, nil, "", "s", true, "s"},
		{Key{Value: cty.NumberIntVal(12)}, int64(12), "12", "s[12]", false, "s"},
		{Key{Value: cty.StringVal(`a "b"[c]`)}, `a "b"[c]`, `a "b"[c]`, `s["a \"b\"[c]"]`, false, "s"},
	} {
		if c.k.IsNone() != c.none || c.k.JSON() != c.json || c.k.String() != c.str || Label("s", c.k) != c.label {
			t.Errorf("%#v: none %v, JSON %#v, String %q, Label %q", c.k, c.k.IsNone(), c.k.JSON(), c.k.String(), Label("s", c.k))
		}
		if got := StepOfLabel(c.label); got != c.stepOfLabel {
			t.Errorf("StepOfLabel(%q) = %q", c.label, got)
		}
	}
}

// TestSortLabels: labels in natural order: by step, a list's instances
// by index, before a map's by key.
func TestSortLabels(t *testing.T) {
	labels := []string{`b`, `a["x"]`, `a[10]`, `a[2]`, `a["b"]`, `a[0]`, `ab[1]`}
	SortLabels(labels)
	want := []string{`a[0]`, `a[2]`, `a[10]`, `a["b"]`, `a["x"]`, `ab[1]`, `b`}
	if !slices.Equal(labels, want) {
		t.Errorf("sorted %q, want %q", labels, want)
	}
}

// TestSameWay: the instances named after the one shown, at most ten.
func TestSameWay(t *testing.T) {
	if got := SameWay([]string{"a[1]"}); got != "1 more instance failed the same way: a[1]." {
		t.Errorf("one: %q", got)
	}
	var many []string
	for i := range 12 {
		many = append(many, fmt.Sprintf("a[%d]", i+1))
	}
	want := "12 more instances failed the same way: a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], and 2 others."
	if got := SameWay(many); got != want {
		t.Errorf("twelve: %q", got)
	}
}
