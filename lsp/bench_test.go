package lsp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/bench/flowgen"
	"go.lsp.dev/protocol"
)

// benchServer is a server on a workspace holding one flow of 10 chains
// of 100 steps, open.
func benchServer(b *testing.B) (*Server, string, *text) {
	dir := b.TempDir()
	file := filepath.Join(dir, "chains.flow.hcl")
	src := flowgen.Chains(10, 100)
	if err := os.WriteFile(file, src, 0o644); err != nil {
		b.Fatal(err)
	}
	s := newServer(Options{})
	s.root = dir
	s.didOpen(context.Background(), protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: uriOf(file), Version: 1, Text: string(src)}})
	s.ws.check([]string{file})
	b.Cleanup(s.close)
	return s, file, newText(src)
}

// BenchmarkDiagnostics1k: an edit of a 1,000-step flow, then its check
// and diagnostics (what the server does after the debounce delay).
//
//	go test ./lsp -run '^$' -bench . -benchtime 50x
func BenchmarkDiagnostics1k(b *testing.B) {
	s, file, t := benchServer(b)
	i := strings.Index(string(t.src), "step.c5_49.value + 1") + len("step.c5_49.value + ")
	r := t.span(i, i+1)
	v := int32(1)
	for b.Loop() {
		v++
		digit := "2"
		if v%2 == 0 {
			digit = "1"
		}
		s.didChange(context.Background(), didChangeParams{
			TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uriOf(file)}, Version: v},
			ContentChanges: []contentChange{{Range: &r, Text: digit}},
		})
		s.ws.check([]string{file})
	}
}

// BenchmarkCompletion1k: completion after step. in a 1,000-step flow
// that has not changed since its check.
func BenchmarkCompletion1k(b *testing.B) {
	s, file, t := benchServer(b)
	i := strings.Index(string(t.src), "step.c7_19.value") + len("step.")
	p := protocol.CompletionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uriOf(file)}, Position: t.position(i)}}
	for b.Loop() {
		list, _ := s.completion(context.Background(), p)
		if len(list.Items) != 999 {
			b.Fatalf("%d items", len(list.Items))
		}
	}
}
