package views

import (
	"io"
	"path/filepath"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
)

// WriteDiff prints the unified diff of a file's content a and b, as
// fmt --diff does.
func WriteDiff(w io.Writer, name string, a, b []byte) {
	text, _ := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A:        splitLines(a),
		B:        splitLines(b),
		FromFile: "old/" + filepath.ToSlash(name),
		ToFile:   "new/" + filepath.ToSlash(name),
		Context:  3,
	})
	io.WriteString(w, text)
}

// splitLines splits text into lines that keep their newlines; unlike
// difflib.SplitLines it adds no empty line after a final newline.
func splitLines(b []byte) []string {
	lines := strings.SplitAfter(string(b), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
