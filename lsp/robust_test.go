package lsp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
)

// TestPanicFailsOneRequest: a handler that panics fails its request with
// an error; the server answers the next one.
func TestPanicFailsOneRequest(t *testing.T) {
	c := startServer(t, filepath.Join("testdata", "ws.txtar"))
	c.open(flowFile)
	boom := func(method string) {
		if method == "textDocument/hover" {
			panic("boom")
		}
	}
	testPanic.Store(&boom)
	defer testPanic.Store(nil)
	err := c.call("textDocument/hover", c.at(flowFile, `input.names`, 7), nil)
	if err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("hover: got %v, want the panic as an error", err)
	}
	testPanic.Store(nil)
	var h *protocol.Hover
	if err := c.call("textDocument/hover", c.at(flowFile, `input.names`, 7), &h); err != nil || h == nil {
		t.Fatalf("hover after a panic: %v, %v", h, err)
	}
	if !strings.Contains(c.logs.String(), "panic in textDocument/hover: boom") {
		t.Errorf("the panic was not logged: %s", c.logs.String())
	}
}

// vocabulary is what random edits insert: the tokens that open and close
// HCL's nested constructs, and reference roots.
var vocabulary = []string{`"`, "{", "}", "[", "]", "(", ")", "${", "=", ".", "\n", "step.", "input.", "each.", "<<-JS\n", "JS\n", "#", "/*", `use = "`, "flow.", "*", ",", "0", "step \"x\" {\n"}

// mutate applies the edits ops describes to src: each three bytes insert
// a token or delete a few bytes at a position.
func mutate(src []byte, ops []byte) []byte {
	out := append([]byte(nil), src...)
	for i := 0; i+2 < len(ops); i += 3 {
		at := (int(ops[i+1])<<8 | int(ops[i+2])) % (len(out) + 1)
		if ops[i]%2 == 0 {
			tok := vocabulary[int(ops[i]/2)%len(vocabulary)]
			out = append(out[:at], append([]byte(tok), out[at:]...)...)
		} else {
			n := min(int(ops[i]%10)+1, len(out)-at)
			out = append(out[:at], out[at+n:]...)
		}
	}
	return out
}

// FuzzEdits applies random insertions and deletions to the example flows
// and asks every feature about the result at several positions: nothing
// may panic.
//
//	go test ./lsp -run '^$' -fuzz FuzzEdits -fuzztime 2m
func FuzzEdits(f *testing.F) {
	flows, _ := filepath.Glob("../examples/*/*.flow.hcl")
	for i := range flows {
		f.Add(uint8(i), []byte{0, 0, 40, 3, 0, 80, 22, 1, 10, 7, 0, 200, 46, 0, 120})
		f.Add(uint8(i), []byte{})
		f.Add(uint8(i), []byte{2, 0, 30, 4, 0, 31, 20, 0, 90, 9, 0, 5, 44, 1, 0})
	}
	f.Fuzz(func(t *testing.T, which uint8, ops []byte) {
		path := flows[int(which)%len(flows)]
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if err := os.CopyFS(dir, os.DirFS(filepath.Dir(path))); err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, filepath.Base(path))
		s := newServer(Options{})
		s.root = dir
		ctx := context.Background()
		u := uriOf(file)
		text := string(mutate(src, ops))
		s.didOpen(ctx, protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, Version: 1, Text: text}})
		s.ws.check([]string{file})
		tdoc := protocol.TextDocumentIdentifier{URI: u}
		tx := newText([]byte(text))
		for off := 0; off <= len(text); off += max(1, len(text)/23) {
			pos := tx.position(off)
			tp := protocol.TextDocumentPositionParams{TextDocument: tdoc, Position: pos}
			s.hover(ctx, protocol.HoverParams{TextDocumentPositionParams: tp})
			s.completion(ctx, protocol.CompletionParams{TextDocumentPositionParams: tp})
			s.definition(ctx, protocol.DefinitionParams{TextDocumentPositionParams: tp})
			s.references(ctx, protocol.ReferenceParams{TextDocumentPositionParams: tp, Context: protocol.ReferenceContext{IncludeDeclaration: true}})
			s.prepareRename(ctx, protocol.PrepareRenameParams{TextDocumentPositionParams: tp})
			s.rename(ctx, protocol.RenameParams{TextDocumentPositionParams: tp, NewName: "renamed"})
			s.codeAction(ctx, protocol.CodeActionParams{TextDocument: tdoc, Range: protocol.Range{Start: pos, End: tx.position(min(len(text), off+17))}})
		}
		s.formatting(ctx, protocol.DocumentFormattingParams{TextDocument: tdoc})
		s.documentSymbol(ctx, protocol.DocumentSymbolParams{TextDocument: tdoc})
		s.semanticTokens(ctx, protocol.SemanticTokensParams{TextDocument: tdoc})
		s.inlayHints(ctx, inlayHintParams{TextDocument: tdoc, Range: protocol.Range{End: tx.position(len(text))}})
		s.codeLens(ctx, protocol.CodeLensParams{TextDocument: tdoc})
		s.close()
	})
}

func TestPlainSnippet(t *testing.T) {
	for in, want := range map[string]string{
		`url = "${1}"`:                            `url = ""`,
		"headers = ${1:{}}":                       "headers = {}",
		"retry {\n\tattempts = ${1:3}\n}":         "retry {\n\tattempts = 3\n}",
		"step \"${1:name}\" {\n\tuse = \"$2\"\n}": "step \"name\" {\n\tuse = \"\"\n}",
	} {
		if got := plainSnippet(in); got != want {
			t.Errorf("plainSnippet(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestCheckSeesOneVersion: a change that arrives while a check runs does
// not reach the documents that check reads. Before, the change updated
// the open document in place: a check could compile its old text and
// record its new version, and the next checks took the old diagnostics
// for the current ones.
func TestCheckSeesOneVersion(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f.flow.hcl")
	src := "flow \"f\" {}\n\nstep \"a\" {\n  use   = \"value\"\n  value = 1\n}\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s := newServer(Options{})
	s.root = dir
	t.Cleanup(s.close)
	s.didOpen(context.Background(), protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: uriOf(file), Version: 1, Text: src}})
	overlay := s.overlay() // what a check that began now reads
	i := strings.Index(src, "value = 1") + len("value = ")
	r := newText([]byte(src)).span(i, i+1)
	if err := s.didChange(context.Background(), didChangeParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uriOf(file)}, Version: 2},
		ContentChanges: []contentChange{{Range: &r, Text: "step.nope.value"}},
	}); err != nil {
		t.Fatal(err)
	}
	if d := overlay[file]; d.version != 1 || string(d.text.src) != src {
		t.Fatalf("the check's document changed under it: version %d, text %q", d.version, d.text.src)
	}
	// The check of the old version is not taken for the new one.
	s.ws.check([]string{file})
	s.ws.mu.Lock()
	c := s.ws.flowLocked(file, s.overlay())
	s.ws.mu.Unlock()
	found := false
	for _, d := range c.diags {
		found = found || strings.Contains(d.Detail+d.Summary, "nope")
	}
	if !found {
		t.Errorf("the check of version 2 does not see its reference to step.nope: %v", c.diags)
	}
}
