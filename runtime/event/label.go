package event

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/flowctl/flowctl/lang"
)

// maxSameWay is how many instance labels SameWay lists.
const maxSameWay = 10

// SameWay is the end of a sentence that names the other instances of a
// step that failed the same way as the one shown: "2 more instances
// failed the same way: a[1], a[2]." (the first maxSameWay of them, then
// how many others).
func SameWay(labels []string) string {
	shown := labels[:min(len(labels), maxSameWay)]
	list := strings.Join(shown, ", ")
	if n := len(labels) - len(shown); n > 0 {
		list += ", and " + lang.Plural(n, "other", "others")
	}
	return fmt.Sprintf("%s failed the same way: %s.", lang.Plural(len(labels), "more instance", "more instances"), list)
}

// StepOfLabel is the step of an instance label: a of a[2] and of a["k"].
func StepOfLabel(label string) string {
	name, _, _ := strings.Cut(label, "[")
	return name
}

// SortLabels sorts instance labels in natural order: by step, then the
// instances of a list by index (a[2] before a[10]), then those of a map
// by key.
func SortLabels(labels []string) {
	slices.SortStableFunc(labels, CompareLabels)
}

// CompareLabels orders two instance labels as SortLabels does.
func CompareLabels(a, b string) int {
	sa, ka, _ := strings.Cut(a, "[")
	sb, kb, _ := strings.Cut(b, "[")
	if c := strings.Compare(sa, sb); c != 0 {
		return c
	}
	ka, kb = strings.TrimSuffix(ka, "]"), strings.TrimSuffix(kb, "]")
	na, errA := strconv.ParseInt(ka, 10, 64)
	nb, errB := strconv.ParseInt(kb, 10, 64)
	switch {
	case errA == nil && errB == nil:
		return cmp.Compare(na, nb)
	case errA == nil:
		return -1
	case errB == nil:
		return 1
	}
	return strings.Compare(ka, kb)
}
