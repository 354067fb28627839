package thinker

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/lang"
)

// TestDocsWhatTheThinkerWrites: docs/thinker.md lists, of the language's
// top-level blocks (docs/language.md's) and step meta-arguments
// (lang.MetaArguments), what the thinker writes and what it cannot, each
// once; and what it says it writes is in the wire reply's schema.
func TestDocsWhatTheThinkerWrites(t *testing.T) {
	doc := readDoc(t, "../docs/thinker.md")
	start := strings.Index(doc, "## What the thinker writes")
	end := strings.Index(doc[start+1:], "\n## ")
	if start < 0 || end < 0 {
		t.Fatal("docs/thinker.md has no section What the thinker writes")
	}
	section := doc[start : start+1+end]
	writes, cannot := paragraph(t, section, "What the thinker writes, of"), paragraph(t, section, "What it cannot write")
	langDoc := readDoc(t, "../docs/language.md")
	top := headings(langDoc, "## Top-level blocks")
	if len(top) < 8 {
		t.Fatalf("docs/language.md's top-level blocks: %v", top)
	}
	check := func(kind string, all []string, writesPart, cannotPart string) {
		w, c := codeNames(writesPart), codeNames(cannotPart)
		for _, name := range all {
			if slices.Contains(w, name) == slices.Contains(c, name) {
				t.Errorf("%s %q: written %v, cannot %v — it must be in exactly one list", kind, name, slices.Contains(w, name), slices.Contains(c, name))
			}
		}
	}
	wTop, wStep, _ := strings.Cut(writes, "meta-arguments")
	cTop, cStep, _ := strings.Cut(cannot, "meta-arguments")
	check("top-level block", top, wTop, cTop)
	check("step meta-argument", lang.MetaArguments, wStep, cStep)

	// What it writes is in the schema sent.
	send := string(wireSchema(StageWire, registryBlocks(t, "file", "llm"), nil).Send)
	for _, f := range []string{"secrets", "memory", "schedules", "retry", "timeout", "on_error", "tools", "depends_on", "inputs", "outputs"} {
		if !strings.Contains(send, `"`+f+`"`) {
			t.Errorf("the wire schema has no field %q", f)
		}
	}
}

func readDoc(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// paragraph is the paragraph of text that begins with start.
func paragraph(t *testing.T, text, start string) string {
	t.Helper()
	i := strings.Index(text, start)
	if i < 0 {
		t.Fatalf("no paragraph %q", start)
	}
	p, _, _ := strings.Cut(text[i:], "\n\n")
	return p
}

// headings are the ### headings under a ## heading.
func headings(doc, section string) []string {
	i := strings.Index(doc, section)
	if i < 0 {
		return nil
	}
	rest := doc[i+len(section):]
	if j := strings.Index(rest, "\n## "); j >= 0 {
		rest = rest[:j]
	}
	var out []string
	for _, m := range regexp.MustCompile(`(?m)^### (\w+)`).FindAllStringSubmatch(rest, -1) {
		out = append(out, m[1])
	}
	return out
}

// codeNames are the `names` in code spans of a text.
func codeNames(text string) []string {
	var out []string
	for _, m := range regexp.MustCompile("`([a-z_]+)`").FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	return out
}
