package views

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// table is a table for people whose rows may be followed by lines of
// text of any width (a step's error under its row), which
// text/tabwriter would count in its columns: the columns are as wide as
// their widest cell, two spaces apart, and the text lines are printed as
// they are.
type table struct {
	lines []tableLine
	width []int
}

type tableLine struct {
	cells []string // nil for a line of text
	text  string
}

// row adds a row of cells.
func (t *table) row(cells ...string) {
	for i, c := range cells {
		if i == len(t.width) {
			t.width = append(t.width, 0)
		}
		t.width[i] = max(t.width[i], utf8.RuneCountInString(c))
	}
	t.lines = append(t.lines, tableLine{cells: cells})
}

// text adds a line (or lines) of text after the last row.
func (t *table) text(s string) {
	t.lines = append(t.lines, tableLine{text: s})
}

func (t *table) write(w io.Writer) {
	var b strings.Builder
	for _, l := range t.lines {
		if l.cells == nil {
			fmt.Fprintln(w, l.text)
			continue
		}
		b.Reset()
		for i, c := range l.cells {
			b.WriteString(c)
			if i < len(l.cells)-1 {
				b.WriteString(strings.Repeat(" ", t.width[i]-utf8.RuneCountInString(c)+2))
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}
