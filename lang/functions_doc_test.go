package lang

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestFunctionDocs: the function tables of docs/language.md list exactly
// the functions of the table, and the README and the reference name the
// same functions beyond go-cty's standard library.
func TestFunctionDocs(t *testing.T) {
	b, err := os.ReadFile("../docs/language.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	section := doc[strings.Index(doc, "\n## Functions\n"):]
	section = section[:strings.Index(section, "\n## Choices")]
	documented := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z0-9_]+)\\(").FindAllStringSubmatch(section, -1) {
		documented[m[1]] = true
	}
	funcs := Functions(".")
	for name := range funcs {
		if !documented[name] {
			t.Errorf("function %s is not in the tables of docs/language.md", name)
		}
	}
	for name := range documented {
		if _, ok := funcs[name]; !ok {
			t.Errorf("docs/language.md documents %s, which is not a function", name)
		}
	}
	// The "plus …" lists of the README and the reference agree.
	plus := func(text string) []string {
		i := strings.Index(text, "standard library under Terraform's names, plus")
		if i < 0 {
			t.Fatal("no list of the functions beyond the standard library")
		}
		end := strings.Index(text[i:], ".")
		var out []string
		for _, m := range regexp.MustCompile("`([a-z0-9]+)`").FindAllStringSubmatch(text[i:i+end], -1) {
			out = append(out, m[1])
		}
		slices.Sort(out)
		return out
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if a, b := plus(string(readme)), plus(section); !slices.Equal(a, b) {
		t.Errorf("the README adds %v to the standard library, docs/language.md %v", a, b)
	}
}
