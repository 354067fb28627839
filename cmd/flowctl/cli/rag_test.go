package cli

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/runtime/state"
)

// ragServer is an OpenAI-compatible server on loopback: /v1/embeddings
// answers each text with a deterministic vector of 768 dimensions (its
// words hashed into buckets, so texts that share words are near), and
// /v1/chat/completions answers the structured reply examples/rag asks
// for, citing the first passage of the prompt, or cite when set.
type ragServer struct {
	*httptest.Server
	mu       sync.Mutex
	embedded []string
	prompts  []string
	cite     string // a source to cite instead of the first passage's
}

var passageHeader = regexp.MustCompile(`\[source (\S+), start (\d+), end (\d+)\]`)

func newRAGServer(t *testing.T) *ragServer {
	s := &ragServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/v1/embeddings":
			var req struct {
				Input []string `json:"input"`
			}
			if err := json.Unmarshal(raw, &req); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			s.mu.Lock()
			s.embedded = append(s.embedded, req.Input...)
			s.mu.Unlock()
			data := make([]map[string]any, len(req.Input))
			for i, text := range req.Input {
				data[i] = map[string]any{"object": "embedding", "index": i, "embedding": wordVector(text)}
			}
			json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": "nomic-embed-text"})
		case "/v1/chat/completions":
			var req struct {
				Messages []struct{ Role, Content string } `json:"messages"`
			}
			json.Unmarshal(raw, &req)
			prompt := req.Messages[len(req.Messages)-1].Content
			s.mu.Lock()
			s.prompts = append(s.prompts, prompt)
			cite := s.cite
			s.mu.Unlock()
			m := passageHeader.FindStringSubmatch(prompt)
			if m == nil {
				http.Error(w, "no passage in the prompt", http.StatusBadRequest)
				return
			}
			if cite != "" {
				m[1] = cite
			}
			start, _ := strconv.Atoi(m[2])
			end, _ := strconv.Atoi(m[3])
			content, _ := json.Marshal(map[string]any{
				"answer":  "Point flowctl at a PostgreSQL database.",
				"sources": []map[string]any{{"source": m[1], "start": start, "end": end}},
			})
			json.NewEncoder(w).Encode(map[string]any{
				"id": "x", "object": "chat.completion", "model": "test",
				"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
					"message": map[string]any{"role": "assistant", "content": string(content)}}},
				"usage": map[string]any{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
			})
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

// sent returns the texts embedded since the call before.
func (s *ragServer) sent() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.embedded
	s.embedded = nil
	return out
}

// wordVector is a text's bag of lower-cased words, hashed into 768
// buckets and normalized.
func wordVector(text string) []float32 {
	v := make([]float32, 768)
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !('a' <= r && r <= 'z') }) {
		h := fnv.New32a()
		h.Write([]byte(w))
		v[h.Sum32()%768]++
	}
	var n float64
	for _, x := range v {
		n += float64(x * x)
	}
	v[767] += 0.01 // never the zero vector
	n = math.Sqrt(n + 1e-4)
	for i := range v {
		v[i] /= float32(n)
	}
	return v
}

// TestRagExample applies examples/rag against a local server: it indexes
// the docs, answers with a source among the search's matches, re-embeds
// only the changed chunks of an edited document, removes a deleted
// document's chunks from the collection, and fails when the model cites a
// passage the search did not find.
func TestRagExample(t *testing.T) {
	srv := newRAGServer(t)
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "")
	dir := filepath.Join(t.TempDir(), "rag")
	if err := os.CopyFS(dir, os.DirFS("../../../examples/rag")); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(dir, ".flowctl"))
	const question = "How do I share the state with a team?"
	type source struct {
		Source     string
		Start, End int
	}
	apply := func() (answer string, sources []source) {
		t.Helper()
		code, out, errOut := runCLI(t, "apply", "--auto-approve", "--json", dir, "--input", "question="+question)
		if code != 0 {
			t.Fatalf("apply exited %d:\n%s%s", code, out, errOut)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		var finished struct {
			Type    string
			Outputs struct {
				Answer  string
				Sources []source
			}
		}
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &finished); err != nil || finished.Type != "run_finished" {
			t.Fatalf("last event %s: %v", lines[len(lines)-1], err)
		}
		return finished.Outputs.Answer, finished.Outputs.Sources
	}
	// items counts the collection's items of each source.
	items := func() map[string]int {
		t.Helper()
		st, err := state.Open(filepath.Join(dir, ".flowctl"))
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		c, err := st.Collection(context.Background(), blocks.CollectionSpec{Name: "docs", Dimensions: 768, Distance: "cosine"})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]int{}
		for _, f := range []string{"docs/caching.md", "docs/install.md", "docs/state.md"} {
			ms, err := c.Search(context.Background(), blocks.VectorQuery{Vector: wordVector("x"), TopK: 1000, Filter: blocks.Filter{{Key: "source", Eq: f}}})
			if err != nil {
				t.Fatal(err)
			}
			out[f] = len(ms)
		}
		return out
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	answer, sources := apply()
	first := srv.sent()
	if answer != "Point flowctl at a PostgreSQL database." || len(sources) != 1 {
		t.Fatalf("answer %q, sources %+v", answer, sources)
	}
	// The cited passage is a chunk of the state's page, as the search
	// ranked it first, and its offsets find its text in the file.
	s := sources[0]
	if s.Source != "docs/state.md" || s.Start < 0 || s.End > len(read(s.Source)) || !strings.Contains(read(s.Source)[s.Start:s.End], "A team shares one state") {
		t.Errorf("the answer cites %+v", s)
	}
	srv.mu.Lock()
	prompt := srv.prompts[0]
	srv.mu.Unlock()
	if !strings.Contains(prompt, "[source docs/state.md, start ") || !strings.HasSuffix(prompt, "Question: "+question) {
		t.Errorf("the model was asked:\n%s", prompt)
	}
	if !slices.Contains(first, question) {
		t.Errorf("the question was not embedded: %q", first)
	}
	before := items()
	if before["docs/install.md"] == 0 || before["docs/state.md"] == 0 || before["docs/caching.md"] == 0 {
		t.Fatalf("after the first apply the collection holds %v", before)
	}
	if got, want := len(first), before["docs/install.md"]+before["docs/state.md"]+before["docs/caching.md"]+1; got != want {
		t.Errorf("the first apply embedded %d texts; want %d (every chunk and the question)", got, want)
	}

	// Edit one section of install.md, delete caching.md.
	install := strings.Replace(read("docs/install.md"), "Run the same `go install` command again.", "Run `go install` with the new version.", 1)
	if err := os.WriteFile(filepath.Join(dir, "docs/install.md"), []byte(install), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "docs/caching.md")); err != nil {
		t.Fatal(err)
	}
	// plan counts the texts, the edited one alone new, and sends none.
	code, out, errOut := runCLI(t, "plan", "--json", dir, "--input", "question="+question)
	var plan struct {
		Steps []struct {
			Name  string
			Embed *struct{ Texts, Cached, New int }
		}
	}
	if err := json.Unmarshal([]byte(out), &plan); code != 0 || err != nil {
		t.Fatalf("plan exited %d (%v):\n%s%s", code, err, out, errOut)
	}
	for _, s := range plan.Steps {
		if s.Name != "embed" {
			continue
		}
		total := before["docs/install.md"] + before["docs/state.md"]
		if s.Embed == nil || s.Embed.Texts != total || s.Embed.Cached != total-1 || s.Embed.New != 1 {
			t.Errorf("plan --json: embed %+v; want %d texts, 1 new", s.Embed, total)
		}
	}
	if got := srv.sent(); len(got) != 0 {
		t.Errorf("plan embedded %q", got)
	}
	apply()
	var chunks []string
	for _, text := range srv.sent() {
		if text != question {
			chunks = append(chunks, text)
		}
	}
	if len(chunks) != 1 || !strings.Contains(chunks[0], "Run `go install` with the new version.") || !strings.Contains(install, chunks[0]) {
		t.Errorf("after editing install.md the server embedded %q; want its changed chunk alone", chunks)
	}
	after := items()
	if after["docs/caching.md"] != 0 || after["docs/install.md"] != before["docs/install.md"] || after["docs/state.md"] != before["docs/state.md"] {
		t.Errorf("after the sync the collection holds %v (before %v); want caching.md's chunks gone", after, before)
	}

	// A model that cites a passage the search did not find fails the run.
	srv.mu.Lock()
	srv.cite = "docs/elsewhere.md"
	srv.mu.Unlock()
	code, out, errOut = runCLI(t, "apply", "--auto-approve", dir, "--input", "question="+question)
	if code != 1 || !strings.Contains(out+errOut, "the answer cites docs/elsewhere.md") {
		t.Errorf("a citation of no match: exit %d\n%s%s", code, out, errOut)
	}
}
