package views

import (
	"fmt"
	"io"
)

// WriteLock says what flowctl lock did to a lock file, or with check what
// it would do; problems say why entries of the lock were not kept.
func WriteLock(w io.Writer, path string, added, kept, removed, problems []string, written, check bool) {
	for _, p := range problems {
		fmt.Fprintf(w, "Entry not usable: %s.\n", p)
	}
	verb := map[bool][2]string{false: {"Locked", "Dropped"}, true: {"Not locked", "No longer needed"}}[check]
	for _, k := range added {
		fmt.Fprintf(w, "%s: %s\n", verb[0], k)
	}
	for _, k := range removed {
		fmt.Fprintf(w, "%s: %s\n", verb[1], k)
	}
	switch {
	case check && len(added)+len(removed) > 0:
		fmt.Fprintf(w, "%s is out of date: run flowctl lock.\n", path)
	case check:
		fmt.Fprintf(w, "%s is complete (%d requirement sets).\n", path, len(kept))
	case written:
		fmt.Fprintf(w, "Wrote %s (%d requirement sets).\n", path, len(added)+len(kept))
	default:
		fmt.Fprintf(w, "%s is up to date (%d requirement sets).\n", path, len(kept))
	}
}
