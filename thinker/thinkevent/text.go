package thinkevent

import (
	"fmt"
	"unicode/utf8"
)

// CapText cuts s to n bytes (at a rune boundary), with a marker.
func CapText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("…[cut: %d more bytes]", len(s)-cut)
}
