package n8n

import (
	"github.com/flowctl/flowctl/importer"
)

// sameNode reports whether two nodes' JSON is the same but for their id
// and position (a node pasted twice into a workflow's JSON).
func sameNode(a, b *importer.JV) bool {
	return sameJSON(a, b, map[string]bool{"id": true, "position": true})
}

// sameJSON compares two JSON values (objects by their keys, in any
// order), leaving out skip's keys at the top.
func sameJSON(a, b *importer.JV, skip map[string]bool) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case 's':
		return a.Str == b.Str
	case 'n':
		return a.Num == b.Num
	case 'b':
		return a.Bool == b.Bool
	case 'a':
		if len(a.Arr) != len(b.Arr) {
			return false
		}
		for i := range a.Arr {
			if !sameJSON(a.Arr[i], b.Arr[i], nil) {
				return false
			}
		}
		return true
	case 'o':
		count := func(v *importer.JV) int {
			c := 0
			for _, k := range v.Keys {
				if !skip[k] {
					c++
				}
			}
			return c
		}
		if count(a) != count(b) {
			return false
		}
		for _, k := range a.Keys {
			if skip[k] {
				continue
			}
			if bv := b.Obj[k]; bv == nil || !sameJSON(a.Obj[k], bv, nil) {
				return false
			}
		}
		return true
	}
	return true
}
