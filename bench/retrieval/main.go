// Command retrieval measures ingest against the targets of issue 52:
// 200 documents of 50 sections of about 280 tokens (10,000 chunks) read
// with fileset and document, chunked by Markdown and embedded, in a run
// of the runtime with a SQLite state, against a local OpenAI-compatible
// embeddings server on loopback that answers at once with deterministic
// vectors of 768 dimensions. The server's own time (encoding its
// replies) is measured and left out; target: 10,000 chunks in 5 s on 2
// cores. Then one document is edited (one section changed) and the flow
// applied again: the figure is how many texts the server received
// (target: that document's changed chunk alone).
//
// Each line gives the CPU time of the process too (the server's
// included), steadier than the wall time on a busy machine; the last,
// the process's peak RSS.
//
// BENCH_CPUPROFILE and BENCH_CPUPROFILE2 name files for CPU profiles of
// the ingest and of the unchanged re-ingest.
//
//	go run ./bench/retrieval [-docs 200] [-sections 50]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/flowctl/flowctl/bench/benchutil"
	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/llm"
	"github.com/flowctl/flowctl/blocks/retrieval"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/state"
)

const flow = `
flow "ingest" {}

step "doc" {
  for_each = fileset(".", "notes/*.md")
  use      = "document"
  path     = each.value
}

step "chunks" {
  for_each   = step.doc
  use        = "chunk"
  text       = each.value.text
  max_tokens = 300
  overlap    = 0
}

step "embed" {
  for_each = step.chunks
  use      = "embed"
  texts    = [for c in each.value.chunks : c.text]
}

output "chunks" {
  value = sum([for k, c in step.chunks : c.count])
}
`

// server is the embeddings endpoint: a vector of 768 dimensions made
// from the text's bytes, at once. busy is the time spent in the handler.
type server struct {
	mu    sync.Mutex
	texts int
	busy  time.Duration
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	var req struct {
		Input []string `json:"input"`
	}
	b, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(b, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	type datum struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	data := make([]datum, len(req.Input))
	for i, text := range req.Input {
		v := make([]float32, 768)
		for j := range v {
			v[j] = float32(text[j%len(text)]) / 255
		}
		data[i] = datum{"embedding", i, v}
	}
	w.Header().Set("Content-Type", "application/json")
	tokens := 0
	for _, text := range req.Input {
		tokens += len(text) / 4 // reported, as OpenAI's and Ollama's servers do
	}
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": "bench",
		"usage": map[string]int{"prompt_tokens": tokens, "total_tokens": tokens}})
	s.mu.Lock()
	s.texts += len(req.Input)
	s.busy += time.Since(start)
	s.mu.Unlock()
}

func (s *server) take() (int, time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, d := s.texts, s.busy
	s.texts, s.busy = 0, 0
	return n, d
}

var words = strings.Fields("the river flows north through old towns and green valleys where farmers grow wheat barley grapes and apples while boats carry coal timber grain and stone toward the busy harbour at its mouth")

// section is about 280 tokens of text: 20 sentences of 14 words.
func section(doc, sec int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Section %d of document %d\n\n", sec, doc)
	for s := range 17 {
		for w := range 13 {
			b.WriteString(words[(doc*7+sec*5+s*3+w)%len(words)])
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%d.\n", s)
	}
	return b.String() + "\n"
}

func main() {
	docs := flag.Int("docs", 200, "documents")
	sections := flag.Int("sections", 50, "sections (chunks) a document")
	flag.Parse()
	dir, err := os.MkdirTemp("", "bench-retrieval-")
	benchutil.Check(err)
	defer os.RemoveAll(dir)
	notes := filepath.Join(dir, "notes")
	benchutil.Check(os.Mkdir(notes, 0o755))
	write := func(d int, edited bool) {
		var b strings.Builder
		for s := range *sections {
			text := section(d, s)
			if edited && s == *sections/2 {
				text = strings.Replace(text, "river", "canal", 1)
			}
			b.WriteString(text)
		}
		benchutil.WriteFile(filepath.Join(notes, fmt.Sprintf("doc%04d.md", d)), []byte(b.String()))
	}
	for d := range *docs {
		write(d, false)
	}
	path := filepath.Join(dir, "ingest.flow.hcl")
	benchutil.WriteFile(path, []byte(flow))
	prog, diags := compiler.Compile(path, compiler.Options{})
	if diags.HasErrors() {
		benchutil.Check(diags)
	}
	srv := &server{}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	st, err := state.Open(filepath.Join(dir, ".flowctl"))
	benchutil.Check(err)
	defer st.Close()
	ex := llm.NewExecutor(llm.Config{BaseURL: hs.URL + "/v1", APIKey: "sk-bench", EmbeddingsModel: "bench", Concurrency: 4})
	executors := &blocks.Executors{Builtins: retrieval.With(blocks.BuiltinExecutors()), Runtimes: map[string]blocks.Executor{lang.RuntimeLLM: ex}}
	apply := func(what string) {
		cpu0 := cpuTime()
		start := time.Now()
		res, err := runtime.Apply(context.Background(), prog, runtime.Options{Store: st, Executors: executors})
		benchutil.Check(err)
		benchutil.Check(st.Flush())
		wall := time.Since(start)
		if res.Status != runtime.StatusOK {
			benchutil.Check(fmt.Errorf("%s: %s %s", what, res.Status, runtime.DiagText(res.Diagnostics)))
		}
		texts, busy := srv.take()
		fmt.Printf("%-28s %6s chunks %6d texts sent %8s wall %8s server %8s ingest %8s CPU\n", what,
			res.Outputs["chunks"].AsBigFloat().String(), texts, wall.Round(time.Millisecond), busy.Round(time.Millisecond), (wall - busy).Round(time.Millisecond),
			(cpuTime() - cpu0).Round(time.Millisecond))
	}
	if p := os.Getenv("BENCH_CPUPROFILE"); p != "" {
		f, err := os.Create(p)
		benchutil.Check(err)
		benchutil.Check(pprof.StartCPUProfile(f))
	}
	apply("ingest")
	pprof.StopCPUProfile()
	if p := os.Getenv("BENCH_CPUPROFILE2"); p != "" {
		f, err := os.Create(p)
		benchutil.Check(err)
		benchutil.Check(pprof.StartCPUProfile(f))
	}
	apply("again, nothing changed")
	pprof.StopCPUProfile()
	write(*docs/2, true)
	apply("again, one document edited")
	var ru syscall.Rusage
	benchutil.Check(syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	fmt.Printf("peak RSS of the process: %d MB\n", ru.Maxrss/1024)
}

// cpuTime is the process's CPU time so far, user and system (the
// server's included): on a busy machine, steadier than the wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	benchutil.Check(syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
