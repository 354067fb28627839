// Command lsp measures flowctl lsp as an editor meets it: the binary
// started with pipes as its standard input and output, spoken to over
// LSP.
//
//   - diagnostics: the time from an edit (didChange) of a 1,000-step flow
//     to the diagnostics of that version reaching the client, debounce
//     included;
//
//   - completion: the time to answer step. completion in that flow, on an
//     unchanged file and right after an edit (which re-checks the flow
//     first);
//
//   - memory: the server's peak resident memory once it has checked a
//     workspace of 10 flows of 1,000 steps each (10,000 steps) and listed
//     its symbols.
//
//     go run ./bench/lsp [-edits 50]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/creachadair/jrpc2"
	"github.com/creachadair/jrpc2/channel"
	"github.com/flowctl/flowctl/bench/benchutil"
	"github.com/flowctl/flowctl/bench/flowgen"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

func main() {
	edits := flag.Int("edits", 50, "edits (and completions) measured")
	flag.Parse()
	dir, bin, done := benchutil.Start("lsp")
	defer done()

	ws := filepath.Join(dir, "ws")
	for i := range 10 {
		d := filepath.Join(ws, fmt.Sprintf("f%d", i))
		src := strings.Replace(string(flowgen.Chains(10, 100)), `flow "chains"`, fmt.Sprintf(`flow "chains%d"`, i), 1)
		benchutil.WriteFile(filepath.Join(d, "chains.flow.hcl"), []byte(src))
	}

	s := start(bin, ws)
	defer s.stop()
	flow := filepath.Join(ws, "f0", "chains.flow.hcl")
	src, _ := os.ReadFile(flow)
	s.open(flow, string(src))
	s.wait(flow, 1)

	// Diagnostics after an edit: change the value of a step in the
	// middle, back and forth.
	text := string(src)
	var diag []time.Duration
	line := lineOf(text, `value = step.c5_49.value + 1`)
	for i := range *edits {
		v := int32(i + 2)
		from, to := "+ 1", "+ 2"
		if i%2 == 1 {
			from, to = to, from
		}
		col := uint32(strings.Index(lineText(text, line), from))
		start := time.Now()
		s.change(flow, v, line, col, from, to)
		s.wait(flow, v)
		diag = append(diag, time.Since(start))
		text = replaceLine(text, line, from, to)
	}

	// Completion after step. in an argument: the file unchanged, then
	// right after an edit.
	cline := lineOf(text, `value = step.c7_19.value + 1`)
	col := uint32(strings.Index(lineText(text, cline), "step.") + len("step."))
	var compl, complEdit []time.Duration
	for range *edits {
		start := time.Now()
		n := s.complete(flow, cline, col)
		compl = append(compl, time.Since(start))
		if n < 999 {
			benchutil.Check(fmt.Errorf("completion gave %d steps", n))
		}
	}
	v := int32(*edits + 2)
	for i := range *edits {
		from, to := "+ 1", "+ 3"
		if i%2 == 1 {
			from, to = to, from
		}
		c := uint32(strings.Index(lineText(text, cline), from))
		s.change(flow, v, cline, c, from, to)
		text = replaceLine(text, cline, from, to)
		v++
		start := time.Now()
		s.complete(flow, cline, col)
		complEdit = append(complEdit, time.Since(start))
	}

	// Memory: the whole workspace checked, its symbols listed.
	for i := 1; i < 10; i++ {
		f := filepath.Join(ws, fmt.Sprintf("f%d", i), "chains.flow.hcl")
		b, _ := os.ReadFile(f)
		s.open(f, string(b))
		s.wait(f, 1)
	}
	var syms []protocol.SymbolInformation
	benchutil.Check(s.cli.CallResult(context.Background(), "workspace/symbol", map[string]any{"query": "c9_99"}, &syms))
	if len(syms) != 10 {
		benchutil.Check(fmt.Errorf("workspace symbols: %d, want 10", len(syms)))
	}
	peak, rss := memory(s.cmd.Process.Pid)

	fmt.Printf("flowctl lsp, 1,000-step flow (%d edits)\n", *edits)
	fmt.Printf("  diagnostics after an edit:    p50 %s  p90 %s  max %s\n", pct(diag, 50), pct(diag, 90), pct(diag, 100))
	fmt.Printf("  completion (file unchanged):  p50 %s  p90 %s  max %s\n", pct(compl, 50), pct(compl, 90), pct(compl, 100))
	fmt.Printf("  completion right after edit:  p50 %s  p90 %s  max %s\n", pct(complEdit, 50), pct(complEdit, 90), pct(complEdit, 100))
	fmt.Printf("workspace of 10 flows × 1,000 steps, all checked: peak RSS %d MB, RSS %d MB\n", peak/1024, rss/1024)
}

type server struct {
	cmd  *exec.Cmd
	cli  *jrpc2.Client
	mu   sync.Mutex
	seen map[string]int32 // newest version with diagnostics, by URI
	cond *sync.Cond
}

func start(bin, root string) *server {
	cmd := exec.Command(bin, "lsp")
	in, err := cmd.StdinPipe()
	benchutil.Check(err)
	out, err := cmd.StdoutPipe()
	benchutil.Check(err)
	cmd.Stderr = os.Stderr
	benchutil.Check(cmd.Start())
	s := &server{cmd: cmd, seen: map[string]int32{}}
	s.cond = sync.NewCond(&s.mu)
	s.cli = jrpc2.NewClient(channel.LSP(out, in), &jrpc2.ClientOptions{OnNotify: func(req *jrpc2.Request) {
		if req.Method() != "textDocument/publishDiagnostics" {
			return
		}
		var p protocol.PublishDiagnosticsParams
		if req.UnmarshalParams(&p) == nil {
			s.mu.Lock()
			s.seen[string(p.URI)] = int32(p.Version)
			s.cond.Broadcast()
			s.mu.Unlock()
		}
	}})
	var res map[string]any
	benchutil.Check(s.cli.CallResult(context.Background(), "initialize", map[string]any{"rootUri": uri.File(root), "capabilities": map[string]any{}}, &res))
	benchutil.Check(s.cli.Notify(context.Background(), "initialized", map[string]any{}))
	return s
}

func (s *server) stop() {
	s.cli.CallResult(context.Background(), "shutdown", nil, nil)
	s.cli.Notify(context.Background(), "exit", nil)
	s.cli.Close()
	s.cmd.Wait()
}

func (s *server) open(path, text string) {
	benchutil.Check(s.cli.Notify(context.Background(), "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri.File(path), "languageId": "flowctl", "version": 1, "text": text}}))
}

func (s *server) change(path string, version int32, line, col uint32, from, to string) {
	r := protocol.Range{Start: protocol.Position{Line: line, Character: col}, End: protocol.Position{Line: line, Character: col + uint32(len(from))}}
	benchutil.Check(s.cli.Notify(context.Background(), "textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri.File(path), "version": version},
		"contentChanges": []map[string]any{{"range": r, "text": to}},
	}))
}

// wait waits for the diagnostics of version of a file.
func (s *server) wait(path string, version int32) {
	u := string(uri.File(path))
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.seen[u] < version {
		s.cond.Wait()
	}
}

func (s *server) complete(path string, line, col uint32) int {
	var list protocol.CompletionList
	benchutil.Check(s.cli.CallResult(context.Background(), "textDocument/completion", map[string]any{
		"textDocument": map[string]any{"uri": uri.File(path)}, "position": protocol.Position{Line: line, Character: col}}, &list))
	return len(list.Items)
}

func lineOf(text, needle string) uint32 {
	i := strings.Index(text, needle)
	if i < 0 {
		benchutil.Check(fmt.Errorf("no %q", needle))
	}
	return uint32(strings.Count(text[:i], "\n"))
}

func lineText(text string, line uint32) string { return strings.Split(text, "\n")[line] }

func replaceLine(text string, line uint32, from, to string) string {
	lines := strings.Split(text, "\n")
	lines[line] = strings.Replace(lines[line], from, to, 1)
	return strings.Join(lines, "\n")
}

// memory is a process's peak and current resident memory in kB.
func memory(pid int) (peak, rss int) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	benchutil.Check(err)
	for _, l := range strings.Split(string(b), "\n") {
		fmt.Sscanf(l, "VmHWM: %d kB", &peak)
		fmt.Sscanf(l, "VmRSS: %d kB", &rss)
	}
	return
}

func pct(d []time.Duration, p int) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	i := min(len(s)-1, len(s)*p/100)
	return s[i].Round(100 * time.Microsecond)
}
