package compiler_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/compiler"
)

func compileSource(t *testing.T, src string) (*compiler.Program, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "c.flow.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	prog, diags := compiler.Compile(path, compiler.Options{})
	return prog, diags.Error()
}

// TestCollections checks collection blocks and the references of vector
// steps, like provider.NAME's: each error where it is, with its range.
func TestCollections(t *testing.T) {
	const head = `flow "f" {}
collection "docs" {
  dimensions = 3
  distance   = "cosine"
}
`
	prog, errs := compileSource(t, head+`
step "up" {
  use        = "vector_upsert"
  collection = collection.docs
  id         = "a"
  vector     = [1, 0, 0]
}
step "find" {
  use        = "vector_search"
  collection = collection.docs
  vector     = [1, 0, 0]
  depends_on = [step.up]
}
`)
	if errs != "no diagnostics" {
		t.Fatal(errs)
	}
	if c := prog.StepsByName["find"].Collection; c == nil || c.Name != "docs" || c.Dimensions != 3 || c.Distance != "cosine" {
		t.Fatalf("find's collection = %+v", c)
	}
	for name, tc := range map[string]struct{ src, want string }{
		"unknown": {head + `step "s" {
  use        = "vector_search"
  collection = collection.dosc
  vector     = [1, 0, 0]
}`, `c.flow.hcl:8,16-31: Unknown collection; Flow "f" declares no collection named "dosc"; its collections are docs.`},
		"missing": {head + `step "s" {
  use    = "vector_search"
  vector = [1, 0, 0]
}`, `Missing collection; Step "s" uses the vector_search block, which names the collection it works on: give it collection = collection.docs`},
		"not vector": {head + `step "s" {
  use        = "value"
  collection = collection.docs
  value      = 1
}`, `Collection on a step that is not a vector step`},
		"not a reference": {head + `step "s" {
  use        = "vector_search"
  collection = "docs"
}`, `Invalid collection; The collection of a vector step is a reference to a collection block`},
		"distance": {`flow "f" {}
collection "c" {
  dimensions = 3
  distance   = "cosinus"
}`, `Invalid distance; A collection's distance is one of cosine, euclidean, dot; got "cosinus". Did you mean "cosine"?`},
		"dimensions": {`flow "f" {}
collection "c" {
  dimensions = 0
}`, `c.flow.hcl:3,16-17`},
		"no dimensions": {`flow "f" {}
collection "c" {}`, `Missing required argument; The argument "dimensions" is required`},
		"twice": {head + `collection "docs" { dimensions = 4 }`, `Duplicate collection`},
		"top_k": {head + `step "s" {
  use        = "vector_search"
  collection = collection.docs
  vector     = [1, 0, 0]
  top_k      = 0
}`, `top_k`},
	} {
		_, errs := compileSource(t, tc.src)
		if !strings.Contains(errs, tc.want) {
			t.Errorf("%s: errors\n%s\nwant %q", name, errs, tc.want)
		}
	}
}
