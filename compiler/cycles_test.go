package compiler

import (
	"reflect"
	"testing"
)

func TestComponents(t *testing.T) {
	// 0 → 1 → 2 → 0, 3 → 3, 4 → 0, 5 alone.
	edges := [][]int{{1}, {2}, {0}, {3}, {0}, nil}
	deps := func(i int) []int { return edges[i] }
	got := components(len(edges), deps)
	want := [][]int{{0, 1, 2}, {3}, {4}, {5}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("components = %v, want %v", got, want)
	}
	var cyc []bool
	for _, c := range got {
		cyc = append(cyc, cyclic(c, deps))
	}
	if !reflect.DeepEqual(cyc, []bool{true, true, false, false}) {
		t.Errorf("cyclic = %v", cyc)
	}
	if p := cycleThrough([]int{0, 1, 2}, deps); !reflect.DeepEqual(p, []int{0, 1, 2}) {
		t.Errorf("cycleThrough = %v", p)
	}
}
