package views

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/flowctl/flowctl/lang"

	"github.com/pmezard/go-difflib/difflib"
)

// WriteFormatted prints what fmt did to files (lang.Formatted): the
// names of the files that changed (with --diff, their diffs), or for
// standard input its formatted content (or its diff); with check, no
// content. It returns how many changed.
func WriteFormatted(w io.Writer, files []lang.Formatted, check, diff bool) int {
	changed := 0
	for _, f := range files {
		if f.Changed() {
			changed++
		}
		switch {
		case f.Stdin && diff:
			WriteDiff(w, f.Name, f.Before, f.After)
		case f.Stdin && !check:
			w.Write(f.After)
		case !f.Stdin:
			fmt.Fprintln(w, f.Name)
			if diff {
				WriteDiff(w, f.Name, f.Before, f.After)
			}
		}
	}
	return changed
}

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
