package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creachadair/jrpc2"
	"github.com/creachadair/jrpc2/channel"
	"go.lsp.dev/protocol"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the golden answers of the conformance suite")

// client is a test client of the server: it speaks to Serve over a pipe
// as an editor does over standard input and output.
type client struct {
	t    *testing.T
	cli  *jrpc2.Client
	root string
	docs map[string]string // open documents' text, by path relative to root
	vers map[string]int32

	mu    sync.Mutex
	diags map[protocol.DocumentURI][]protocol.PublishDiagnosticsParams
	wake  chan struct{}
	logs  bytes.Buffer
}

// startServer unpacks the workspace of a txtar archive into a temporary
// directory and starts a server on it.
func startServer(t *testing.T, archive string) *client {
	t.Helper()
	root := unpack(t, archive)
	root, _ = filepath.EvalSymlinks(root)
	c := &client{t: t, root: root, docs: map[string]string{}, vers: map[string]int32{},
		diags: map[protocol.DocumentURI][]protocol.PublishDiagnosticsParams{}, wake: make(chan struct{}, 1)}
	sr, cw := io.Pipe()
	cr, sw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- Serve(sr, sw, Options{Debounce: 5 * time.Millisecond, Log: log.New(&syncWriter{w: &c.logs, mu: &c.mu}, "", 0), Version: "test"})
		sw.Close()
	}()
	c.cli = jrpc2.NewClient(channel.LSP(cr, cw), &jrpc2.ClientOptions{OnNotify: func(req *jrpc2.Request) {
		if req.Method() != "textDocument/publishDiagnostics" {
			return
		}
		var p protocol.PublishDiagnosticsParams
		if err := req.UnmarshalParams(&p); err != nil {
			t.Errorf("publishDiagnostics: %v", err)
			return
		}
		c.mu.Lock()
		c.diags[p.URI] = append(c.diags[p.URI], p)
		c.mu.Unlock()
		select {
		case c.wake <- struct{}{}:
		default:
		}
	}})
	t.Cleanup(func() {
		c.call("shutdown", nil, nil)
		c.cli.Notify(context.Background(), "exit", nil)
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("the server did not stop after exit")
		}
		c.cli.Close()
		cw.Close()
	})
	var res json.RawMessage
	c.call("initialize", map[string]any{
		"processId": nil, "rootUri": uriOf(root),
		"capabilities": map[string]any{"textDocument": map[string]any{
			"completion": map[string]any{"completionItem": map[string]any{"snippetSupport": true}},
			"hover":      map[string]any{"contentFormat": []string{"markdown", "plaintext"}},
		}},
	}, &res)
	c.cli.Notify(context.Background(), "initialized", map[string]any{})
	return c
}

// unpack writes the files of a txtar archive into a temporary directory.
func unpack(t testing.TB, archive string) string {
	t.Helper()
	ar, err := txtar.ParseFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	for _, f := range ar.Files {
		p := filepath.Join(root, f.Name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

type syncWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func (c *client) uri(rel string) protocol.DocumentURI { return uriOf(filepath.Join(c.root, rel)) }

// call sends a request and decodes its result into res; an error answer
// is returned.
func (c *client) call(method string, params, res any) error {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rsp, err := c.cli.Call(ctx, method, params)
	if err != nil {
		return err
	}
	if res != nil {
		if err := rsp.UnmarshalResult(res); err != nil {
			c.t.Fatalf("%s: decoding the result: %v", method, err)
		}
	}
	return nil
}

func (c *client) notify(method string, params any) {
	c.t.Helper()
	if err := c.cli.Notify(context.Background(), method, params); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

// open opens a file of the workspace as its text on disk.
func (c *client) open(rel string) {
	c.t.Helper()
	src, err := os.ReadFile(filepath.Join(c.root, rel))
	if err != nil {
		c.t.Fatal(err)
	}
	c.docs[rel], c.vers[rel] = string(src), 1
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": c.uri(rel), "languageId": "flowctl", "version": 1, "text": string(src),
	}})
}

// edit replaces the first occurrence of old in an open document with
// new, as an incremental change.
func (c *client) edit(rel, old, new string) {
	c.t.Helper()
	text := c.docs[rel]
	i := strings.Index(text, old)
	if i < 0 {
		c.t.Fatalf("%s has no %q", rel, old)
	}
	t := newText([]byte(text))
	r := t.span(i, i+len(old))
	c.docs[rel] = text[:i] + new + text[i+len(old):]
	c.vers[rel]++
	c.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": c.uri(rel), "version": c.vers[rel]},
		"contentChanges": []map[string]any{{"range": r, "text": new}},
	})
}

// pos is the position delta bytes after the first occurrence of needle
// in an open document (or the file).
func (c *client) pos(rel, needle string, delta int) protocol.Position {
	c.t.Helper()
	text, ok := c.docs[rel]
	if !ok {
		src, _ := os.ReadFile(filepath.Join(c.root, rel))
		text = string(src)
	}
	i := strings.Index(text, needle)
	if i < 0 {
		c.t.Fatalf("%s has no %q", rel, needle)
	}
	return newText([]byte(text)).position(i + delta)
}

// diagnostics waits for the diagnostics of a file that satisfy ok (the
// newest publication), and returns them.
func (c *client) diagnostics(rel string, ok func(protocol.PublishDiagnosticsParams) bool) protocol.PublishDiagnosticsParams {
	c.t.Helper()
	u := c.uri(rel)
	deadline := time.After(60 * time.Second)
	for {
		c.mu.Lock()
		list := c.diags[u]
		c.mu.Unlock()
		if n := len(list); n > 0 && ok(list[n-1]) {
			return list[n-1]
		}
		select {
		case <-c.wake:
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			c.t.Fatalf("no diagnostics of %s as expected; got %v", rel, list)
		}
	}
}

// golden compares v, as indented JSON with the workspace's path
// replaced by WS, with testdata/golden/NAME.json (written with -update).
func (c *client) golden(name string, v any) {
	c.t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		c.t.Fatal(err)
	}
	got := strings.ReplaceAll(string(b), string(uriOf(c.root)), "file:///WS")
	got = strings.ReplaceAll(got, c.root, "/WS") + "\n"
	file := filepath.Join("testdata", "golden", name+".json")
	if *update {
		os.MkdirAll(filepath.Dir(file), 0o755)
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			c.t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		c.t.Fatalf("%v (run go test ./lsp -update to write it)", err)
	}
	if got != string(want) {
		c.t.Errorf("%s: the answer differs from %s (go test ./lsp -update rewrites it):\n%s", name, file, lineDiff(string(want), got))
	}
}

// lineDiff shows the first lines where want and got differ.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			lo := max(0, i-2)
			return "line " + itoa(i+1) + ":\nwant: " + strings.Join(w[lo:min(len(w), i+3)], "\n      ") + "\ngot:  " + strings.Join(g[lo:min(len(g), i+3)], "\n      ")
		}
	}
	return ""
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
