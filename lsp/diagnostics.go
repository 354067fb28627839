package lsp

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"go.lsp.dev/protocol"
)

// publishPending checks the files changed since the last check and the
// files that depend on them, and publishes the diagnostics of every file
// whose diagnostics may have changed.
func (s *Server) publishPending() {
	s.mu.Lock()
	paths := make([]string, 0, len(s.pending))
	for p := range s.pending {
		paths = append(paths, p)
	}
	s.pending = map[string]bool{}
	s.mu.Unlock()
	defer func() {
		if p := recover(); p != nil {
			s.log.Printf("panic while checking %v: %v", paths, p)
		}
	}()
	s.ws.check(paths)
}

// staleLater keeps a path that changed while a check ran, for the next
// check to mark what read it (applyStale). Called with s.mu held.
func (s *Server) staleLater(path string) {
	s.stale = append(s.stale, path)
}

// applyStale marks stale what read the paths staleLater kept. Called with
// w.mu held.
func (s *Server) applyStale(w *workspace) {
	s.mu.Lock()
	paths := s.stale
	s.stale = nil
	s.mu.Unlock()
	for _, p := range paths {
		w.invalidateLocked(p)
	}
}

func (w *workspace) check(paths []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	overlay := w.s.overlay()
	w.s.applyStale(w)
	targets := map[string]bool{}
	for _, p := range paths {
		for _, d := range w.dependents(p, overlay) {
			targets[d] = true
		}
	}
	order := make([]string, 0, len(targets))
	for t := range targets {
		order = append(order, t)
	}
	// Flows first: the tests of a flow use its check.
	sort.Slice(order, func(i, j int) bool {
		fi, fj := lang.IsFlowFile(order[i]), lang.IsFlowFile(order[j])
		if fi != fj {
			return fi
		}
		return order[i] < order[j]
	})
	touched := map[string]bool{}
	for _, p := range paths {
		touched[p] = true
	}
	for _, t := range order {
		for f := range w.diags[t] {
			touched[f] = true
		}
		delete(w.diags, t)
		if overlay[t] == nil {
			if _, err := os.Stat(t); err != nil {
				delete(w.flows, t)
				delete(w.tests, t)
				delete(w.blocks, t)
				delete(w.lastGood, t)
				continue
			}
		}
		var diags hcl.Diagnostics
		switch {
		case lang.IsFlowFile(t):
			diags = w.flowLocked(t, overlay).diags
		case lang.IsTestFile(t):
			diags = w.testLocked(t, overlay).diags
		case lang.IsEvalFile(t):
			diags = w.evalDiags(t, overlay)
		case lang.IsBlockFile(t) && (overlay[t] != nil || targets[t] && contains(paths, t)):
			diags = w.blockLocked(t, overlay).diags
		default:
			continue
		}
		byFile := map[string]hcl.Diagnostics{}
		for _, d := range diags {
			f := t
			if d.Subject != nil && d.Subject.Filename != "" {
				f = absolute(d.Subject.Filename)
			}
			byFile[f] = append(byFile[f], d)
			touched[f] = true
		}
		w.diags[t] = byFile
	}
	for f := range touched {
		w.publish(f, overlay)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func absolute(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

// publish sends the diagnostics of one file: the union of what every
// check found in it.
func (w *workspace) publish(file string, overlay map[string]*document) {
	var all hcl.Diagnostics
	for _, byFile := range w.diags {
		all = append(all, byFile[file]...)
	}
	if len(all) == 0 && !w.published[file] && overlay[file] == nil {
		return // nothing to say of a file the editor does not show
	}
	w.published[file] = len(all) > 0
	all = compiler.Normalize(all)
	t := w.textOf(file, overlay)
	params := protocol.PublishDiagnosticsParams{URI: uriOf(file), Diagnostics: []protocol.Diagnostic{}}
	if d := overlay[file]; d != nil {
		params.Version = uint32(d.version)
	}
	for _, d := range all {
		params.Diagnostics = append(params.Diagnostics, toDiagnostic(d, t))
	}
	w.s.notify("textDocument/publishDiagnostics", params)
}

// textOf is a file's text: the open document's, else the file's.
func (w *workspace) textOf(file string, overlay map[string]*document) *text {
	if d := overlay[file]; d != nil {
		return d.text
	}
	if c := w.flows[file]; c != nil {
		return c.text
	}
	src, _ := os.ReadFile(file)
	return newText(src)
}

func toDiagnostic(d *hcl.Diagnostic, t *text) protocol.Diagnostic {
	out := protocol.Diagnostic{
		Severity: protocol.DiagnosticSeverityError,
		Source:   "flowctl",
		Message:  diagMessage(d),
	}
	if d.Severity == hcl.DiagWarning {
		out.Severity = protocol.DiagnosticSeverityWarning
	}
	if d.Subject != nil {
		out.Range = t.rng(*d.Subject)
	}
	return out
}

// diagMessage is a diagnostic as one message: the summary, then the
// detail.
func diagMessage(d *hcl.Diagnostic) string {
	if d.Detail == "" {
		return d.Summary
	}
	return d.Summary + ": " + d.Detail
}

// didYouMean is the name a "Did you mean" diagnostic suggests, "" when it
// suggests none.
func didYouMean(message string) string {
	const mark = "Did you mean \""
	i := strings.LastIndex(message, mark)
	if i < 0 {
		return ""
	}
	rest := message[i+len(mark):]
	j := strings.Index(rest, "\"?")
	if j < 0 {
		return ""
	}
	return rest[:j]
}
