package index

import (
	"testing"

	"github.com/flowctl/flowctl/blocks"
)

// TestRelevance: a block whose words fit a purpose is relevant to it; one
// that only shares a common word ("text") is not.
func TestRelevance(t *testing.T) {
	reg := blocks.NewRegistry()
	ix := New(reg.All())
	file := reg.Lookup("file")
	read, shared := ix.Relevance(file, "read notes. Read a local text file")
	if read < 0.5 || len(shared) < 3 {
		t.Errorf("file for reading a local file: %.2f %v", read, shared)
	}
	norm, shared := ix.Relevance(file, "normalize text. Normalize the whitespace and letter case of a text")
	if norm >= 0.25 {
		t.Errorf("file for normalizing text: %.2f %v, want < 0.25", norm, shared)
	}
	if s, _ := ix.Relevance(file, ""); s != 0 {
		t.Errorf("an empty purpose: %.2f", s)
	}
	if s, _ := ix.Relevance(&blocks.Block{Name: "other"}, "read a file"); s != 0 {
		t.Errorf("a block not in the index: %.2f", s)
	}
}
