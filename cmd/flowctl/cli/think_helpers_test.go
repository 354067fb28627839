package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

// thinkServer is an OpenAI-compatible server for flowctl think: it answers
// each request by its response_format.json_schema.name from a queue of
// scripted replies per stage, and records the requests. A structured
// request of another name (an llm block run by apply) gets an object with
// a value for each property of its schema; a stage whose queue is empty
// gets a 400, so that a test that asks more than it scripted fails at once.
type thinkServer struct {
	*httptest.Server
	mu       sync.Mutex
	script   map[string][]string
	requests []thinkRequest
	embedded int // texts embedded
}

type thinkRequest struct {
	Model          string `json:"model"`
	ResponseFormat *struct {
		Type       string `json:"type"`
		JSONSchema *struct {
			Name   string          `json:"name"`
			Strict bool            `json:"strict"`
			Schema json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	} `json:"response_format"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
}

func (r thinkRequest) stage() string {
	if r.ResponseFormat == nil || r.ResponseFormat.JSONSchema == nil {
		return ""
	}
	return r.ResponseFormat.JSONSchema.Name
}

func (r thinkRequest) lastMessage() string {
	if len(r.Messages) == 0 {
		return ""
	}
	return r.Messages[len(r.Messages)-1].Content
}

var thinkStages = map[string]bool{"clarify": true, "decompose": true, "create_block": true, "wire": true, "repair": true, "explain": true}

func newThinkServer(t *testing.T, script map[string][]string) *thinkServer {
	s := &thinkServer{script: script}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.Close)
	t.Setenv("OPENAI_BASE_URL", s.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("FLOWCTL_MODEL", "test-model")
	t.Setenv("FLOWCTL_EMBEDDINGS_MODEL", "")
	return s
}

func (s *thinkServer) handle(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if strings.HasSuffix(r.URL.Path, "/embeddings") {
		s.embed(w, body)
		return
	}
	var req thinkRequest
	if err := json.Unmarshal(body, &req); err != nil || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.Error(w, "bad request", 400)
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	name := req.stage()
	var content string
	switch q := s.script[name]; {
	case len(q) > 0:
		content, s.script[name] = q[0], q[1:]
	case thinkStages[name]:
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(400)
		fmt.Fprintf(w, `{"error":{"message":"no reply scripted for %s","type":"invalid_request_error"}}`, name)
		return
	default:
		content = objectFor(req)
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": "x", "object": "chat.completion", "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": content}}},
		"usage": map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
	})
}

// embed answers an embeddings request with vectors that count a few
// letters of each text, so that similar texts have similar vectors. The
// model "missing" has no embeddings.
func (s *thinkServer) embed(w http.ResponseWriter, body []byte) {
	var req struct {
		Input []string `json:"input"`
		Model string   `json:"model"`
	}
	json.Unmarshal(body, &req)
	w.Header().Set("Content-Type", "application/json")
	if req.Model == "missing" {
		w.WriteHeader(404)
		fmt.Fprint(w, `{"error":{"message":"model missing does not exist","type":"invalid_request_error"}}`)
		return
	}
	s.mu.Lock()
	s.embedded += len(req.Input)
	s.mu.Unlock()
	var data []any
	for i, text := range req.Input {
		var vec []float64
		for _, c := range "aeiflrstx" {
			vec = append(vec, float64(strings.Count(strings.ToLower(text), string(c)))+0.1)
		}
		data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": vec})
	}
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "model": req.Model, "data": data,
		"usage": map[string]any{"prompt_tokens": 1, "total_tokens": 1}})
}

// objectFor makes a reply for a structured request that is not a stage's.
func objectFor(req thinkRequest) string {
	if req.stage() == "" {
		return "A plain reply."
	}
	var sch struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
	}
	json.Unmarshal(req.ResponseFormat.JSONSchema.Schema, &sch)
	obj := map[string]any{}
	for name, p := range sch.Properties {
		switch p.Type {
		case "number":
			obj[name] = 1
		case "array":
			obj[name] = []string{}
		default:
			obj[name] = "a summary"
		}
	}
	b, _ := json.Marshal(obj)
	return string(b)
}

func (s *thinkServer) recorded(stage string) []thinkRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []thinkRequest
	for _, r := range s.requests {
		if stage == "" || r.stage() == stage {
			out = append(out, r)
		}
	}
	return out
}

// stages lists the stage of every request, in order.
func (s *thinkServer) stages() []string {
	var out []string
	for _, r := range s.recorded("") {
		out = append(out, r.stage())
	}
	return out
}

// Scripted replies.

const (
	decomposeRead = `{"id": "read_notes", "description": "Read a local text file", "runtime": "go",
		"inputs": [{"name": "path", "type": "string", "description": "The file"}],
		"outputs": [{"name": "text", "type": "string", "description": "Its text"}, {"name": "sha256", "type": "string", "description": "Its digest"}]}`
	decomposeCount = `{"id": "count_words", "description": "Count the words of a text", "runtime": "js",
		"inputs": [{"name": "text", "type": "string", "description": "The text"}],
		"outputs": [{"name": "count", "type": "number", "description": "How many words"}]}`
	decomposeLongest = `{"id": "longest_word", "description": "Find the longest word of a text", "runtime": "go",
		"inputs": [{"name": "text", "type": "string", "description": "The text"}],
		"outputs": [{"name": "word", "type": "string", "description": "The longest word"}]}`
	decomposeTopic = `{"id": "name_topic", "description": "Name the topic of a text in a few words", "runtime": "llm",
		"inputs": [{"name": "text", "type": "string", "description": "The text"}],
		"outputs": [{"name": "topic", "type": "string", "description": "The topic"}]}`

	countSource   = "function execute(input) {\n  const words = input.text.split(/\\s+/).filter(w => w.length > 0)\n  return { count: words.length }\n}"
	longestSource = "package block\n\nimport (\n\t\"context\"\n\t\"strings\"\n)\n\nfunc Execute(ctx context.Context, input map[string]any) (map[string]any, error) {\n\tbest := \"\"\n\tfor _, w := range strings.Fields(input[\"text\"].(string)) {\n\t\tif len(w) > len(best) {\n\t\t\tbest = w\n\t\t}\n\t}\n\treturn map[string]any{\"word\": best}, nil\n}\n"

	notesText = "flowctl wires typed blocks into flows\n"
)

func decompose(blocks ...string) string { return `{"blocks": [` + strings.Join(blocks, ",") + `]}` }

func createReply(id, runtime, code, example string) string {
	source, prompt := "null", "null"
	b, _ := json.Marshal(code)
	if runtime == "llm" {
		prompt = string(b)
	} else {
		source = string(b)
	}
	ios := map[string]string{
		"count_words":  `"inputs": [{"name": "text", "type": "string", "description": "The text"}], "outputs": [{"name": "count", "type": "number", "description": "How many words"}]`,
		"longest_word": `"inputs": [{"name": "text", "type": "string", "description": "The text"}], "outputs": [{"name": "word", "type": "string", "description": "The longest word"}]`,
		"name_topic":   `"inputs": [{"name": "text", "type": "string", "description": "The text"}], "outputs": [{"name": "topic", "type": "string", "description": "The topic"}]`,
	}[id]
	return fmt.Sprintf(`{"id": %q, "description": "A block", "runtime": %q, "source": %s, "prompt": %s, %s, "example": %s}`,
		id, runtime, source, prompt, ios, example)
}

// wireReply is a wire or repair reply: steps are "name use arg=expr ..."
// strings, outputs "name=expr".
func wireReply(name string, steps []string, outputs ...string) string {
	var ss, os []string
	for _, s := range steps {
		f := strings.Fields(s)
		args := map[string]string{}
		for _, a := range f[2:] {
			k, v, _ := strings.Cut(a, "=")
			args[k] = strings.ReplaceAll(v, "_SP_", " ")
		}
		b, _ := json.Marshal(args)
		ss = append(ss, fmt.Sprintf(`{"name": %q, "use": %q, "args": %s, "depends_on": []}`, f[0], f[1], b))
	}
	for _, o := range outputs {
		k, v, _ := strings.Cut(o, "=")
		os = append(os, fmt.Sprintf(`{"name": %q, "value": %q}`, k, v))
	}
	return fmt.Sprintf(`{"name": %q, "description": "A flow", "inputs": [], "steps": [%s], "outputs": [%s]}`,
		name, strings.Join(ss, ","), strings.Join(os, ","))
}

// thinkDir is a directory with notes.txt, the working directory of the
// test.
func thinkDir(t *testing.T) string {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte(notesText), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	return dir
}

// thinkEvents parses the JSON lines of think --json, checking that each
// has a type and a time.
func thinkEvents(t *testing.T, out string) []map[string]any {
	t.Helper()
	var events []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var e map[string]any
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("not a JSON event: %q", line)
		}
		if e["type"] == nil || e["time"] == nil {
			t.Errorf("event without type or time: %s", line)
		}
		events = append(events, e)
	}
	return events
}

func typesOf(events []map[string]any, skip ...string) []string {
	var out []string
	for _, e := range events {
		ty := e["type"].(string)
		if ty == "llm_request" || ty == "llm_response" || ty == "usage" {
			continue
		}
		if ty == "stage" {
			ty += ":" + e["stage"].(string)
		}
		out = append(out, ty)
	}
	return out
}

func findEvent(events []map[string]any, ty string) map[string]any {
	for _, e := range events {
		if e["type"] == ty {
			return e
		}
	}
	return nil
}

// applyOutputs validates the flow and applies it, returning its outputs.
func applyOutputs(t *testing.T, flow string, extra ...string) map[string]any {
	t.Helper()
	args := append([]string{"validate", flow}, extra...)
	if code, out, errOut := runCLI(t, args...); code != 0 {
		t.Fatalf("validate exited %d:\n%s%s", code, out, errOut)
	}
	args = append([]string{"apply", "--auto-approve", "--json", "--sandbox=inprocess", flow}, extra...)
	code, out, errOut := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("apply exited %d:\n%s%s", code, out, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var last struct {
		Type    string         `json:"type"`
		Status  string         `json:"status"`
		Outputs map[string]any `json:"outputs"`
	}
	json.Unmarshal([]byte(lines[len(lines)-1]), &last)
	if last.Type != "run_finished" || last.Status != "ok" {
		t.Fatalf("apply ended with %s", lines[len(lines)-1])
	}
	return last.Outputs
}

func filesIn(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Name() == stateDirName {
			return filepath.SkipDir // the state, where think records its patterns
		}
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(out)
	return out
}
