package server

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestDocsListEveryRoute: the API table of docs/serve.md lists every
// route the server serves, and nothing else.
func TestDocsListEveryRoute(t *testing.T) {
	b, err := os.ReadFile("../docs/serve.md")
	if err != nil {
		t.Fatal(err)
	}
	var documented []string
	for _, m := range regexp.MustCompile("(?m)^\\| `(GET|POST) (/[^` ?]*)[^`]*` \\|").FindAllStringSubmatch(string(b), -1) {
		documented = append(documented, m[1]+" "+m[2])
	}
	ts := newTestServer(t, files{}, nil)
	served := slices.Clone(ts.srv.routes)
	slices.Sort(documented)
	slices.Sort(served)
	if strings.Join(documented, "\n") != strings.Join(served, "\n") {
		t.Errorf("docs/serve.md lists:\n%s\nthe server serves:\n%s", strings.Join(documented, "\n"), strings.Join(served, "\n"))
	}
}
