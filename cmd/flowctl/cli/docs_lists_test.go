package cli

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/lang"
)

// The docs state some lists that the code defines: the built-in blocks,
// the commands, the standard packages go blocks may import (checked by
// blocks/sandbox/gorun's TestDocsListTheAllowlist, and python's modules by
// blocks/sandbox/pyrun's). These tests read each place a list is stated
// and compare it with the code, so that a block or command added or
// removed fails here until the docs say so.

// docsFile reads a file of the repository, by its path from the root.
func docsFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile("../../../" + path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// lineWith returns the first line of text that starts with prefix, and
// fails the test when there is none.
func lineWith(t *testing.T, file, text, prefix string) string {
	t.Helper()
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	t.Fatalf("%s has no line starting %q: the test no longer finds the list it checks", file, prefix)
	return ""
}

// section returns the lines of text after the line start, up to the first
// line that starts with one of the ends.
func section(t *testing.T, file, text, start string, ends ...string) []string {
	t.Helper()
	_, after, ok := strings.Cut(text, "\n"+start+"\n")
	if !ok {
		t.Fatalf("%s has no line %q: the test no longer finds the list it checks", file, start)
	}
	var out []string
	for _, l := range strings.Split(after, "\n") {
		for _, e := range ends {
			if strings.HasPrefix(l, e) {
				return out
			}
		}
		out = append(out, l)
	}
	return out
}

var codeSpanRE = regexp.MustCompile("`([^`]+)`")

// codeSpans returns the words in backquotes of s, sorted.
func codeSpans(s string) []string {
	var out []string
	for _, m := range codeSpanRE.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	slices.Sort(out)
	return out
}

// firstCell returns the code span of a table row's first cell ("| `http` |
// …" → "http"), or "".
func firstCell(row string) string {
	cells := strings.Split(row, "|")
	if len(cells) < 3 {
		return ""
	}
	c := strings.TrimSpace(cells[1])
	if strings.HasPrefix(c, "`") && strings.HasSuffix(c, "`") && strings.Count(c, "`") == 2 {
		return strings.Trim(c, "`")
	}
	return ""
}

// TestDocsListTheBuiltinBlocks: every place the docs name the built-in
// blocks names exactly blocks.Builtins (issue 34: the number differed in
// three places), and language.md says how many there are and documents
// each, with the cache default and sensitivity the code gives it.
func TestDocsListTheBuiltinBlocks(t *testing.T) {
	var want []string
	byName := map[string]*blocks.Block{}
	for _, b := range blocks.Builtins() {
		want = append(want, b.Name)
		byName[b.Name] = b
	}
	slices.Sort(want)
	check := func(where string, got []string) {
		t.Helper()
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s names the built-in blocks %v; the code has %v", where, got, want)
		}
	}
	readme := docsFile(t, "README.md")
	l := lineWith(t, "README.md", readme, "- **Built-in blocks**:")
	l, _, _ = strings.Cut(l, " (")
	check("README.md (Language)", codeSpans(l))
	l = lineWith(t, "README.md", readme, "| `blocks` |")
	_, l, _ = strings.Cut(l, "(")
	l, _, _ = strings.Cut(l, ")")
	check("README.md (packages)", codeSpans(l))

	design := docsFile(t, "docs/design.md")
	var rows []string
	for _, r := range section(t, "docs/design.md", design, "Built-in blocks:", "`") {
		if c := firstCell(r); c != "" {
			rows = append(rows, c)
		}
	}
	check("docs/design.md (Built-in blocks)", rows)

	language := docsFile(t, "docs/language.md")
	check("docs/language.md (the registry)", codeSpans(lineWith(t, "docs/language.md", language, "1. the built-in blocks")))
	check("docs/registry.md", codeSpans(lineWith(t, "docs/registry.md", docsFile(t, "docs/registry.md"), "1. the built-in blocks")))
	builtins := section(t, "docs/language.md", language, "## Built-in blocks", "## ")
	var headings, summary []string
	inSummary := false
	for _, l := range builtins {
		switch {
		case l == "### Summary":
			inSummary = true
		case strings.HasPrefix(l, "### "):
			headings = append(headings, strings.TrimPrefix(l, "### "))
		case inSummary && firstCell(l) != "":
			name := firstCell(l)
			summary = append(summary, name)
			cells := strings.Split(l, "|")
			cache, sensitive := strings.TrimSpace(cells[2]), strings.TrimSpace(cells[3])
			if b := byName[name]; b != nil {
				if (cache == "true") != b.CacheDefault {
					t.Errorf("docs/language.md's summary says %s's cache default is %s; the code says %v", name, cache, b.CacheDefault)
				}
				if (sensitive == "yes") != b.PropagatesSensitive {
					t.Errorf("docs/language.md's summary says %s's outputs sensitive: %s; the code says %v", name, sensitive, b.PropagatesSensitive)
				}
			}
		}
	}
	check("docs/language.md (a section per block)", headings)
	check("docs/language.md (Summary)", summary)
	number := []string{"Zero", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten", "Eleven", "Twelve", "Thirteen", "Fourteen", "Fifteen", "Sixteen", "Seventeen", "Eighteen"}
	if n := len(want); n >= len(number) || !strings.Contains(strings.Join(builtins, "\n"), number[n]+" blocks are always in the registry") {
		t.Errorf("docs/language.md does not say %q", number[min(n, len(number)-1)]+" blocks are always in the registry")
	}
}

// TestDocsListTheCommands: README.md's command table has a row for each
// command of flowctl and no other, and each row names the command's
// subcommands.
func TestDocsListTheCommands(t *testing.T) {
	readme := docsFile(t, "README.md")
	rows := map[string]string{}
	for _, l := range section(t, "README.md", readme, "| command | what it does |", "#") {
		name, ok := strings.CutPrefix(l, "| `flowctl ")
		if !ok {
			continue
		}
		name, _, _ = strings.Cut(name, " ")
		name = strings.TrimSuffix(name, "`")
		rows[name] = l
	}
	if len(rows) < 10 {
		t.Fatalf("README.md's command table has %d rows: the test no longer finds it", len(rows))
	}
	root := newRootCommand(streams{})
	var want []string
	for _, c := range root.Commands() {
		if c.Hidden || c.Name() == "help" {
			continue
		}
		want = append(want, c.Name())
		row, ok := rows[c.Name()]
		if !ok {
			continue
		}
		for _, sub := range c.Commands() {
			if !sub.Hidden && sub.Name() != "help" && !regexp.MustCompile(`\b`+sub.Name()+`\b`).MatchString(row) {
				t.Errorf("README.md's row of flowctl %s does not name its subcommand %s", c.Name(), sub.Name())
			}
		}
	}
	var got []string
	for name := range rows {
		got = append(got, name)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("README.md's command table has\n%v\nflowctl has\n%v", got, want)
	}
}

// TestDocsNameTheMCPEndpoint: docs/tools.md gives the path mcp --http
// serves its endpoint at, and language.md no longer calls test files
// reserved (issue 34: both were wrong or missing).
func TestDocsNameTheMCPEndpoint(t *testing.T) {
	if tools := docsFile(t, "docs/tools.md"); !strings.Contains(tools, "http://127.0.0.1:PORT"+mcpPath+"`") {
		t.Errorf("docs/tools.md does not give the endpoint of mcp --http, http://127.0.0.1:PORT%s", mcpPath)
	}
	row := lineWith(t, "docs/language.md", docsFile(t, "docs/language.md"), "| `NAME.test.hcl` |")
	if strings.Contains(row, "reserved") || !strings.Contains(row, "flowctl test") {
		t.Errorf("docs/language.md: %s", row)
	}
}

// TestDocsListTheLanguage: docs/language.md's table of top-level blocks
// has a row for each block a flow file may hold, its table of
// meta-arguments one for each meta-argument, and its provider section
// each argument of a provider block.
func TestDocsListTheLanguage(t *testing.T) {
	language := docsFile(t, "docs/language.md")
	var rows []string
	for _, r := range section(t, "docs/language.md", language, "## Top-level blocks", "### ") {
		if c := firstCell(r); c != "" {
			rows = append(rows, c)
		}
	}
	if want := lang.TopLevelBlocks(); !slices.Equal(rows, want) {
		t.Errorf("docs/language.md's top-level blocks are %v; the code has %v", rows, want)
	}
	rows = nil
	for _, r := range section(t, "docs/language.md", language, "| meta-argument | value | default | meaning |", "**") {
		if c := firstCell(r); c != "" {
			rows = append(rows, c)
		}
	}
	if want := lang.MetaArguments; !slices.Equal(rows, want) {
		t.Errorf("docs/language.md's meta-arguments are %v; the code has %v", rows, want)
	}
	rows = nil
	for _, r := range section(t, "docs/language.md", language, "### provider", "```") {
		if c := firstCell(r); c != "" {
			rows = append(rows, c)
		}
	}
	if want := lang.ProviderArguments(); !slices.Equal(rows, want) {
		t.Errorf("docs/language.md's provider arguments are %v; the code has %v", rows, want)
	}
}

// TestDocsListTheLLMInputs: docs/language.md's table of the llm block's
// inputs names each input of the built-in, in order, with its type.
func TestDocsListTheLLMInputs(t *testing.T) {
	language := docsFile(t, "docs/language.md")
	var b *blocks.Block
	for _, x := range blocks.Builtins() {
		if x.Name == "llm" {
			b = x
		}
	}
	var rows, types []string
	for _, r := range section(t, "docs/language.md", language, "### llm", "| output |") {
		if c := firstCell(r); c != "" {
			rows = append(rows, c)
			types = append(types, strings.TrimSpace(strings.Split(r, "|")[2]))
		}
	}
	if want := b.InputNames(); !slices.Equal(rows, want) {
		t.Fatalf("docs/language.md's llm inputs are %v; the code has %v", rows, want)
	}
	for i, in := range b.Inputs {
		if want := lang.TypeString(in.Type.Type); types[i] != want {
			t.Errorf("docs/language.md gives llm's %s the type %s; the code %s", in.Name, types[i], want)
		}
	}
}
