package runtime

import (
	"strings"
	"testing"
)

// TestVectorSteps runs a flow that indexes three documents' chunks, each
// document replaced as a unit, deletes one by metadata, and searches with
// a filter and in hybrid mode, against the run's state.
func TestVectorSteps(t *testing.T) {
	prog := compile(t, `flow "rag" {}
collection "notes" {
  dimensions = 3
}
locals {
  docs = {
    "a.md" = [{ text = "apples are red", vector = [1, 0, 0] }, { text = "apples grow on trees", vector = [0.9, 0.1, 0] }]
    "b.md" = [{ text = "bananas are yellow", vector = [0, 1, 0] }]
    "c.md" = [{ text = "cherries are small", vector = [0, 0, 1] }]
  }
}
step "index" {
  use        = "vector_upsert"
  for_each   = local.docs
  collection = collection.notes
  items      = [for i, c in each.value : { id = "${each.key}#${i}", vector = c.vector, text = c.text, metadata = { source = each.key, n = i } }]
  replace    = { source = each.key }
}
step "forget" {
  use        = "vector_delete"
  collection = collection.notes
  where      = { source = "c.md" }
  depends_on = [step.index]
}
step "near" {
  use        = "vector_search"
  collection = collection.notes
  vector     = [1, 0.05, 0]
  top_k      = 5
  depends_on = [step.forget]
}
step "filtered" {
  use        = "vector_search"
  collection = collection.notes
  vector     = [1, 0.05, 0]
  filter     = { source = "a.md", n = { gte = 1 } }
  depends_on = [step.forget]
}
step "hybrid" {
  use        = "vector_search"
  collection = collection.notes
  vector     = [1, 0, 0]
  query      = "yellow bananas"
  mode       = "hybrid"
  top_k      = 2
  depends_on = [step.forget]
}
output "near" { value = step.near.ids }
output "source" { value = step.near.matches[0].metadata.source }
output "filtered" { value = step.filtered.ids }
output "hybrid" { value = step.hybrid.ids }
output "deleted" { value = step.forget.deleted }
output "count" { value = step.index["a.md"].count }
`)
	st := openStore(t)
	res, _ := apply(t, prog, Options{Store: st})
	if res.Status != StatusOK {
		t.Fatalf("status %s: %v", res.Status, res.Diagnostics)
	}
	for name, want := range map[string]string{
		"near":     `["a.md#0","a.md#1","b.md#0"]`,
		"source":   `"a.md"`,
		"filtered": `["a.md#1"]`,
		"hybrid":   `["b.md#0","a.md#0"]`, // b: 1/63 + 1/61 (BM25 first), a: 1/61
		"deleted":  `1`,
		"count":    `2`,
	} {
		if got := outputJSON(t, res.Outputs[name]); got != want {
			t.Errorf("output %s = %s, want %s", name, got, want)
		}
	}

	// A vector of the wrong dimension: the step fails, naming the
	// collection and why.
	bad := compile(t, `flow "bad" {}
collection "notes" {
  dimensions = 3
}
step "up" {
  use        = "vector_upsert"
  collection = collection.notes
  id         = "x"
  vector     = [1, 2]
}
`)
	res, _ = apply(t, bad, Options{Store: st})
	if res.Status != StatusFailed || !strings.Contains(res.Diagnostics.Error(), `collection "notes" has 3 dimensions, and the vector of item "x" has 2`) {
		t.Fatalf("status %s: %v", res.Status, res.Diagnostics)
	}

	// An item built from a secret is not stored.
	t.Setenv("T52_SECRET", "hunter2")
	leak := compile(t, `flow "leak" {}
collection "notes" {
  dimensions = 3
}
secret "k" {
  env = "T52_SECRET"
}
step "up" {
  use        = "vector_upsert"
  collection = collection.notes
  id         = "s"
  vector     = [1, 0, 0]
  text       = "the key is ${secret.k}"
}
`)
	res, _ = apply(t, leak, Options{Store: st})
	if res.Status != StatusFailed || !strings.Contains(res.Diagnostics.Error(), "the text to store comes from a secret") {
		t.Fatalf("status %s: %v", res.Status, res.Diagnostics)
	}
}
