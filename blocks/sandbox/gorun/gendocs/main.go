// Command gendocs writes the list of the standard packages go blocks may
// import (gorun.PackagesMarkdown) into docs/language.md, between its
// markers. It is run by go generate in blocks/sandbox/gorun; a test there
// fails when the file and the code disagree.
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/flowctl/flowctl/blocks/sandbox/gorun"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gendocs docs/language.md")
		os.Exit(2)
	}
	path := os.Args[1]
	b, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	before, rest, ok := strings.Cut(string(b), gorun.DocsStart)
	_, after, ok2 := strings.Cut(rest, gorun.DocsEnd)
	if !ok || !ok2 {
		fmt.Fprintf(os.Stderr, "%s: no %q … %q markers\n", path, gorun.DocsStart, gorun.DocsEnd)
		os.Exit(1)
	}
	out := before + gorun.DocsStart + gorun.PackagesMarkdown() + gorun.DocsEnd + after
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
