package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"path/filepath"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/creachadair/jrpc2"
	"github.com/creachadair/jrpc2/handler"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// DefaultDebounce is how long the server waits after an edit before it
// checks: edits that come closer together are checked once.
const DefaultDebounce = 20 * time.Millisecond

// Options configure a server.
type Options struct {
	// RegistryDirs are --registry directories, added to those the client
	// gives in its initialization options.
	RegistryDirs []string
	// Debounce is the delay of diagnostics after an edit; 0 is
	// DefaultDebounce.
	Debounce time.Duration
	// Log receives what the server logs (a panic in a handler, a state
	// that cannot be read); nil discards it.
	Log *log.Logger
	// Version is flowctl's, for serverInfo.
	Version string
}

// Server is a language server over one workspace. Its handlers answer
// from the checks of the workspace (workspace.go), which an edit makes
// stale and the next request or the debounced diagnostics renew.
type Server struct {
	opts Options
	rpc  *jrpc2.Server
	log  *log.Logger

	mu         sync.Mutex
	root       string   // the workspace folder, absolute
	registries []string // absolute
	docs       map[string]*document
	shutdown   bool
	// What the client takes: snippets in completions, Markdown in
	// hovers.
	snippets, markdown bool

	ws *workspace
	// diagnostics: the files changed since the last check, and the timer
	// that checks them.
	pending map[string]bool
	stale   []string // changed while a check ran (staleLater)
	timer   *time.Timer
}

// document is an open file, as one version: a change makes a new
// document, so that a check, which reads a copy of the map of documents
// (overlay), sees each one's text and version together, as they were when
// it began.
type document struct {
	path    string
	version int32
	text    *text
}

// Serve runs a language server on r and w (stdin and stdout, for an
// editor) until the client exits or the stream ends. A message whose
// header cannot be read (framing.go) ends it: the server logs why and
// returns a *FrameError.
func Serve(r io.Reader, w io.WriteCloser, opts Options) error {
	s := newServer(opts)
	s.rpc = jrpc2.NewServer(s.handlers(), &jrpc2.ServerOptions{AllowPush: true, Concurrency: 4})
	s.rpc.Start(newFrames(r, w))
	err := s.rpc.Wait()
	s.close()
	if err == io.EOF || err == jrpc2.ErrConnClosed {
		return nil
	}
	if fe := (*FrameError)(nil); errors.As(err, &fe) {
		s.log.Printf("closing: %v", err)
	}
	return err
}

func newServer(opts Options) *Server {
	if opts.Debounce <= 0 {
		opts.Debounce = DefaultDebounce
	}
	lg := opts.Log
	if lg == nil {
		lg = log.New(io.Discard, "", 0)
	}
	s := &Server{opts: opts, log: lg, docs: map[string]*document{}, pending: map[string]bool{}}
	s.ws = newWorkspace(s)
	return s
}

func (s *Server) close() {
	s.mu.Lock()
	if s.timer != nil {
		s.timer.Stop()
	}
	s.mu.Unlock()
	s.ws.close()
}

// handlers maps each method to its handler, each wrapped so that a panic
// fails its request alone.
func (s *Server) handlers() handler.Map {
	m := map[string]any{
		"initialize":                        s.initialize,
		"initialized":                       func(context.Context) error { return nil },
		"shutdown":                          s.shutdownRequest,
		"exit":                              s.exit,
		"textDocument/didOpen":              s.didOpen,
		"textDocument/didChange":            s.didChange,
		"textDocument/didSave":              s.didSave,
		"textDocument/didClose":             s.didClose,
		"workspace/didChangeWatchedFiles":   s.didChangeWatchedFiles,
		"textDocument/hover":                s.hover,
		"textDocument/completion":           s.completion,
		"textDocument/definition":           s.definition,
		"textDocument/references":           s.references,
		"textDocument/prepareRename":        s.prepareRename,
		"textDocument/rename":               s.rename,
		"textDocument/codeAction":           s.codeAction,
		"textDocument/formatting":           s.formatting,
		"textDocument/documentSymbol":       s.documentSymbol,
		"workspace/symbol":                  s.workspaceSymbol,
		"textDocument/semanticTokens/full":  s.semanticTokens,
		"textDocument/semanticTokens/range": s.semanticTokensRange,
		"textDocument/inlayHint":            s.inlayHints,
		"textDocument/codeLens":             s.codeLens,
	}
	out := handler.Map{}
	for name, fn := range m {
		out[name] = s.guard(name, handler.New(fn))
	}
	return out
}

// guard recovers a panic of a handler: it is logged with its stack and
// the request fails with an internal error; the server goes on.
func (s *Server) guard(method string, h jrpc2.Handler) jrpc2.Handler {
	return func(ctx context.Context, req *jrpc2.Request) (res any, err error) {
		defer func() {
			if p := recover(); p != nil {
				s.log.Printf("panic in %s: %v\n%s", method, p, debug.Stack())
				res, err = nil, jrpc2.Errorf(jrpc2.InternalError, "flowctl lsp: %s failed: %v", method, p)
			}
		}()
		if f := testPanic.Load(); f != nil {
			(*f)(method)
		}
		return h(ctx, req)
	}
}

// testPanic, when a test sets it, is called before each handler: a test
// makes a handler panic to see the server survive. Atomic: handlers run
// on the server's goroutines.
var testPanic atomic.Pointer[func(method string)]

type initializeParams struct {
	Capabilities          clientCapabilities         `json:"capabilities"`
	RootURI               protocol.DocumentURI       `json:"rootUri"`
	RootPath              string                     `json:"rootPath"`
	WorkspaceFolders      []protocol.WorkspaceFolder `json:"workspaceFolders"`
	InitializationOptions json.RawMessage            `json:"initializationOptions"`
}

func (s *Server) initialize(ctx context.Context, p initializeParams) (*initializeResult, error) {
	root := ""
	switch {
	case len(p.WorkspaceFolders) > 0:
		root = uri.URI(p.WorkspaceFolders[0].URI).Filename()
	case p.RootURI != "":
		root = p.RootURI.Filename()
	case p.RootPath != "":
		root = p.RootPath
	}
	var io initOptions
	if len(p.InitializationOptions) > 0 && string(p.InitializationOptions) != "null" {
		if err := json.Unmarshal(p.InitializationOptions, &io); err != nil {
			return nil, jrpc2.Errorf(jrpc2.InvalidParams, "initializationOptions: %v", err)
		}
	}
	s.mu.Lock()
	if root != "" {
		s.root, _ = filepath.Abs(root)
	}
	for _, dir := range append(append([]string{}, s.opts.RegistryDirs...), io.Registries...) {
		if !filepath.IsAbs(dir) && s.root != "" {
			dir = filepath.Join(s.root, dir)
		}
		abs, _ := filepath.Abs(dir)
		s.registries = append(s.registries, abs)
	}
	tdc := p.Capabilities.TextDocument
	s.snippets = tdc.Completion.CompletionItem.SnippetSupport
	s.markdown = len(tdc.Hover.ContentFormat) == 0 || contains(tdc.Hover.ContentFormat, "markdown")
	if io.DebounceMS != nil && *io.DebounceMS >= 0 {
		s.opts.Debounce = time.Duration(*io.DebounceMS) * time.Millisecond
	}
	s.mu.Unlock()
	return &initializeResult{
		Capabilities: capabilities(),
		ServerInfo:   &protocol.ServerInfo{Name: "flowctl", Version: s.opts.Version},
	}, nil
}

// clientCapabilities are what the server reads of the client's.
type clientCapabilities struct {
	TextDocument struct {
		Completion struct {
			CompletionItem struct {
				SnippetSupport bool `json:"snippetSupport"`
			} `json:"completionItem"`
		} `json:"completion"`
		Hover struct {
			ContentFormat []string `json:"contentFormat"`
		} `json:"hover"`
	} `json:"textDocument"`
}

func capabilities() serverCapabilities {
	return serverCapabilities{
		ServerCapabilities: protocol.ServerCapabilities{
			TextDocumentSync: protocol.TextDocumentSyncOptions{
				OpenClose: true,
				Change:    protocol.TextDocumentSyncKindIncremental,
				Save:      &protocol.SaveOptions{},
			},
			HoverProvider: true,
			CompletionProvider: &protocol.CompletionOptions{
				TriggerCharacters: []string{".", "\"", "="},
			},
			DefinitionProvider:         true,
			ReferencesProvider:         true,
			RenameProvider:             protocol.RenameOptions{PrepareProvider: true},
			CodeActionProvider:         protocol.CodeActionOptions{CodeActionKinds: []protocol.CodeActionKind{protocol.QuickFix, protocol.RefactorExtract, protocol.Source}},
			DocumentFormattingProvider: true,
			DocumentSymbolProvider:     true,
			WorkspaceSymbolProvider:    true,
			CodeLensProvider:           &protocol.CodeLensOptions{},
		},
		PositionEncoding:  "utf-16",
		InlayHintProvider: true,
		SemanticTokensProvider: &semanticTokensOptions{
			Legend: protocol.SemanticTokensLegend{TokenTypes: tokenTypes, TokenModifiers: tokenModifiers},
			Full:   true, Range: true,
		},
	}
}

func (s *Server) shutdownRequest(ctx context.Context) error {
	s.mu.Lock()
	s.shutdown = true
	s.mu.Unlock()
	return nil
}

func (s *Server) exit(ctx context.Context) error {
	go s.rpc.Stop()
	return nil
}

// notify sends a notification to the client; an error (the client went)
// is logged.
func (s *Server) notify(method string, params any) {
	if s.rpc == nil {
		return
	}
	if err := s.rpc.Notify(context.Background(), method, params); err != nil {
		s.log.Printf("%s: %v", method, err)
	}
}

func pathOf(u protocol.DocumentURI) string {
	p := uri.URI(u).Filename()
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

func uriOf(path string) protocol.DocumentURI { return protocol.DocumentURI(uri.File(path)) }

func (s *Server) didOpen(ctx context.Context, p protocol.DidOpenTextDocumentParams) error {
	path := pathOf(p.TextDocument.URI)
	s.mu.Lock()
	s.docs[path] = &document{path: path, version: p.TextDocument.Version, text: newText([]byte(p.TextDocument.Text))}
	s.changedLocked(path)
	s.mu.Unlock()
	return nil
}

func (s *Server) didChange(ctx context.Context, p didChangeParams) error {
	path := pathOf(p.TextDocument.URI)
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.docs[path]
	if d == nil {
		return fmt.Errorf("didChange of %s, which is not open", path)
	}
	s.docs[path] = &document{path: path, version: p.TextDocument.Version, text: newText(applyChanges(d.text.src, p.ContentChanges))}
	s.changedLocked(path)
	return nil
}

func (s *Server) didSave(ctx context.Context, p protocol.DidSaveTextDocumentParams) error {
	s.mu.Lock()
	s.changedLocked(pathOf(p.TextDocument.URI))
	s.mu.Unlock()
	return nil
}

func (s *Server) didClose(ctx context.Context, p protocol.DidCloseTextDocumentParams) error {
	path := pathOf(p.TextDocument.URI)
	s.mu.Lock()
	delete(s.docs, path)
	s.changedLocked(path) // the file on disk is what counts now
	s.mu.Unlock()
	return nil
}

func (s *Server) didChangeWatchedFiles(ctx context.Context, p protocol.DidChangeWatchedFilesParams) error {
	s.mu.Lock()
	for _, c := range p.Changes {
		s.changedLocked(pathOf(c.URI))
	}
	s.mu.Unlock()
	return nil
}

// changedLocked notes that a file changed: the workspace's checks that
// read it are stale, and its diagnostics and those of the files that
// depend on it are checked after the debounce delay.
func (s *Server) changedLocked(path string) {
	s.ws.invalidate(path)
	s.pending[path] = true
	if s.timer == nil {
		s.timer = time.AfterFunc(s.opts.Debounce, s.publishPending)
	} else {
		s.timer.Reset(s.opts.Debounce)
	}
}

// overlay is the text of the open documents, by path: what the checks
// read instead of the files on disk.
func (s *Server) overlay() map[string]*document {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]*document, len(s.docs))
	for k, d := range s.docs {
		out[k] = d
	}
	return out
}

// config is the workspace folder and registries.
func (s *Server) config() (root string, registries []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.root, append([]string(nil), s.registries...)
}
