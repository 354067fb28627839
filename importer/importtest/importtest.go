// Package importtest runs the cases of the import corpus
// (importer/testdata) against a local HTTP server and a scripted model:
// what cmd/flowctl/cli's TestImportCorpus and importer/n8nlive share.
//
// A case is a txtar archive. Besides the source (source.json, blocks.json)
// and the files import writes (want/…), a case that runs holds:
//
//	run/server.json   {"METHOD /path": {"json": value} | {"text": "…", "type": "text/html"} | {"status": 503} | {"echo": true}}
//	                  (echo: the answer is the request the server got, as
//	                  JSON {query, headers, body}: the headers it logs;
//	                  a chat completion asked for with "stream": true is
//	                  streamed, as an OpenAI-compatible server does; a
//	                  multipart/form-data body is logged and echoed as its
//	                  parts, [Content-Disposition | Content-Type] bytes,
//	                  without the random boundary)
//	run/model.json    [{"match": "text in the prompt", "reply": "…"}]
//	run/args          more apply arguments, one a line (--secret, --input)
//	run/env           the environment n8n runs the case in, NAME=VALUE
//	                  lines ($env.NAME; the flow reads them as secrets,
//	                  given in run/args)
//	run/outputs.json  the outputs the original gives: written from its
//	                  semantics (AnythingLLM, AgentFlow), recorded from n8n
//	                  itself (n8n: importer/n8nlive checks n8n still gives them)
//	run/requests      the requests the server must get, sorted, one a line
//	run/not-in-n8n    why n8n cannot run the case (n8nlive leaves it out)
//	run/n8n-credentials.json  credentials n8n import:credentials reads
//	run/request.json  the request that starts a workflow whose trigger is
//	                  a Webhook, Chat Trigger or Form Trigger: {"method",
//	                  "path" (with its query), "headers", and "json" (a
//	                  body sent as JSON), "form" (fields sent as a form) or
//	                  "text"}; importer/n8nlive sends it to n8n as a server
//	                  and to flowctl serve
//	run/response.json the answer n8n gives it, recorded from n8n:
//	                  {"status", "type" (the media type), "json" | "text"}
//
// http://test.server in the case's files stands for the server's URL.
//
// A case whose comment starts "corpus: importer/testdata/real/PATH" holds
// that real workflow as its collection has it, with the scheme and host of
// every URL rewritten to http://test.server (RewriteHosts) and nothing
// else changed: one of the sample of real workflows run end to end.
package importtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"golang.org/x/tools/txtar"
)

// Placeholder is the URL the cases use for the local server.
const Placeholder = "http://test.server"

// Case is a case of the corpus.
type Case struct {
	Name    string // FORMAT/NAME
	Path    string
	Format  string
	Comment []byte // the archive's comment
	Files   map[string][]byte
}

// Runs reports whether the case is run (it has expected outputs).
func (c *Case) Runs() bool { return c.Files["run/outputs.json"] != nil }

// Serves reports whether the case is started by a request
// (run/request.json) to the flow served, and answers as
// run/response.json records.
func (c *Case) Serves() bool { return c.Files["run/request.json"] != nil }

// Cases reads the corpus under dir (importer/testdata).
func Cases(t testing.TB, dir string) []*Case {
	paths, _ := filepath.Glob(filepath.Join(dir, "*", "*.txtar"))
	if len(paths) == 0 {
		t.Fatalf("no cases under %s", dir)
	}
	var out []*Case
	for _, p := range paths {
		ar, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		c := &Case{Path: p, Comment: ar.Comment, Files: map[string][]byte{}}
		c.Format = filepath.Base(filepath.Dir(p))
		c.Name = c.Format + "/" + strings.TrimSuffix(filepath.Base(p), ".txtar")
		for _, f := range ar.Files {
			c.Files[f.Name] = f.Data
		}
		out = append(out, c)
	}
	return out
}

// hostURL is the start of a URL: its scheme and host (and port).
var hostURL = regexp.MustCompile(`https?://[A-Za-z0-9.-]+(:[0-9]+)?`)

// RewriteHosts puts http://test.server for the scheme and host of every
// URL in b: a real workflow, whose requests go to many services, made to
// send them all to the case's server.
func RewriteHosts(b []byte) []byte {
	return hostURL.ReplaceAll(b, []byte(Placeholder))
}

// Corpus is the path of the real workflow (importer/testdata/real/…)
// whose source.json the case holds, hosts rewritten (RewriteHosts): the
// first line of the case's comment, "corpus: PATH"; "" for a case
// written for the corpus.
func (c *Case) Corpus() string {
	first, _, _ := strings.Cut(string(c.Comment), "\n")
	path, ok := strings.CutPrefix(first, "corpus: ")
	if !ok {
		return ""
	}
	return strings.TrimSpace(path)
}

// PointAtServer rewrites the hosts of the flows import wrote under dir
// to url, for a case of a real workflow: the workflow's services (a
// provider's base_url among them, which the source does not hold: n8n
// keeps it in the credential) are the case's server, as they are for n8n.
func (c *Case) PointAtServer(t testing.TB, dir, url string) {
	if c.Corpus() == "" {
		return
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".hcl") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(p, Substitute(RewriteHosts(b), url), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Substitute puts url where the case says http://test.server.
func Substitute(b []byte, url string) []byte {
	return []byte(strings.ReplaceAll(string(b), Placeholder, url))
}

// Args are the case's more apply arguments: a line is a flag and its
// value (which may hold spaces).
func (c *Case) Args() []string {
	var out []string
	for _, a := range strings.Split(strings.TrimSpace(string(c.Files["run/args"])), "\n") {
		if a = strings.TrimSpace(a); a == "" {
			continue
		}
		flag, value, ok := strings.Cut(a, " ")
		out = append(out, flag)
		if ok {
			out = append(out, value)
		}
	}
	return out
}

// Outputs are the outputs the case expects.
func (c *Case) Outputs(t testing.TB) map[string]any {
	var want map[string]any
	if err := json.Unmarshal(c.Files["run/outputs.json"], &want); err != nil {
		t.Fatalf("%s: run/outputs.json: %v", c.Name, err)
	}
	return want
}

// CompareOutputs reports each output that differs, as JSON values
// (numbers as numbers, objects without order), with both values.
func CompareOutputs(t testing.TB, gotName string, got map[string]any, wantName string, want map[string]any) {
	t.Helper()
	for _, k := range sortedKeys(want) {
		g, ok := got[k]
		if !ok {
			t.Errorf("output %s: %s gives none; %s gives %s", k, gotName, wantName, JSON(want[k]))
			continue
		}
		if !reflect.DeepEqual(normal(g), normal(want[k])) {
			t.Errorf("output %s differs:\n%s: %s\n%s: %s", k, gotName, JSON(g), wantName, JSON(want[k]))
		}
	}
	for _, k := range sortedKeys(got) {
		if _, ok := want[k]; !ok {
			t.Errorf("output %s: %s gives %s, which %s does not have", k, gotName, JSON(got[k]), wantName)
		}
	}
}

func normal(v any) any {
	b, _ := json.Marshal(v)
	var out any
	json.Unmarshal(b, &out)
	return out
}

// JSON is v as compact JSON, for messages.
func JSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// Server answers the routes of run/server.json and keeps the requests.
type Server struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string
}

// loggedHeaders are the request headers the server logs (and echoes):
// the ones credentials set, the body's type, a trace.
var loggedHeaders = []string{"Authorization", "Content-Type", "X-Api-Key", "X-Trace", "Api-Key", "Notion-Version", "Xc-Token"}

// NewServer starts the case's server; the test's cleanup stops it.
func NewServer(t testing.TB, c *Case) *Server {
	routes := map[string]struct {
		JSON   any    `json:"json"`
		Text   string `json:"text"`
		Type   string `json:"type"`
		Status int    `json:"status"`
		Echo   bool   `json:"echo"`
	}{}
	if spec := c.Files["run/server.json"]; spec != nil {
		if err := json.Unmarshal(spec, &routes); err != nil {
			t.Fatalf("%s: run/server.json: %v", c.Name, err)
		}
	}
	s := &Server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err == nil && mt == "multipart/form-data" {
			// The boundary is random: the parts are logged (and echoed)
			// without it.
			body = []byte(formParts(body, params["boundary"]))
			r.Header.Set("Content-Type", mt)
		}
		line := r.Method + " " + r.URL.RequestURI()
		got := map[string]string{}
		for _, h := range loggedHeaders {
			if v := r.Header.Get(h); v != "" {
				line += fmt.Sprintf(" %s=%s", strings.ToLower(h), v)
				got[strings.ToLower(h)] = v
			}
		}
		if len(body) > 0 {
			line += " body=" + string(body)
		}
		s.mu.Lock()
		s.seen = append(s.seen, line)
		s.mu.Unlock()
		route, ok := routes[r.Method+" "+r.URL.Path]
		if !ok {
			http.Error(w, "no route "+r.Method+" "+r.URL.Path, http.StatusNotFound)
			return
		}
		status := route.Status
		if status == 0 {
			status = 200
		}
		if route.Echo {
			query := map[string]string{}
			for k, v := range r.URL.Query() {
				query[k] = strings.Join(v, ",")
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			json.NewEncoder(w).Encode(map[string]any{"query": query, "headers": got, "body": string(body)})
			return
		}
		if chunks := streamed(body, route.JSON); chunks != nil && status == 200 {
			// A chat completion asked for as a stream: the same reply, as
			// an OpenAI-compatible server streams it.
			w.Header().Set("Content-Type", "text/event-stream")
			for _, c := range chunks {
				b, _ := json.Marshal(c)
				fmt.Fprintf(w, "data: %s\n\n", b)
			}
			io.WriteString(w, "data: [DONE]\n\n")
			return
		}
		if route.JSON != nil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			json.NewEncoder(w).Encode(route.JSON)
			return
		}
		ct := route.Type
		if ct == "" {
			ct = "text/plain; charset=utf-8"
		}
		w.Header().Set("Content-Type", ct)
		w.WriteHeader(status)
		io.WriteString(w, route.Text)
	}))
	t.Cleanup(s.Close)
	return s
}

// formParts is a multipart/form-data body without its boundary: each
// part as [its Content-Disposition | its Content-Type] and its bytes.
func formParts(body []byte, boundary string) string {
	var parts []string
	mr := multipart.NewReader(bytes.NewReader(body), boundary)
	for {
		p, err := mr.NextRawPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "unreadable multipart body: " + err.Error()
		}
		b, _ := io.ReadAll(p)
		parts = append(parts, fmt.Sprintf("[%s | %s] %s", p.Header.Get("Content-Disposition"), p.Header.Get("Content-Type"), b))
	}
	return strings.Join(parts, " ")
}

// streamed is the chunks an OpenAI-compatible server streams reply, a
// chat completion, in, when the request asks for a stream ("stream":
// true): the message as one delta, then the finish reason and usage; nil
// for another request or reply.
func streamed(request []byte, reply any) []map[string]any {
	var req struct {
		Stream bool `json:"stream"`
	}
	m, _ := reply.(map[string]any)
	if json.Unmarshal(request, &req) != nil || !req.Stream || m["object"] != "chat.completion" {
		return nil
	}
	choices, _ := m["choices"].([]any)
	if len(choices) != 1 {
		return nil
	}
	choice, _ := choices[0].(map[string]any)
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": m["id"], "object": "chat.completion.chunk", "created": m["created"], "model": m["model"],
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	last := chunk(map[string]any{}, choice["finish_reason"])
	last["usage"] = m["usage"]
	return []map[string]any{chunk(map[string]any{"role": "assistant", "content": ""}, nil), chunk(choice["message"].(map[string]any), nil), last}
}

// Requests are the requests the server got, sorted, one a line.
func (s *Server) Requests() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	lines := append([]string(nil), s.seen...)
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// Reset forgets the requests so far.
func (s *Server) Reset() {
	s.mu.Lock()
	s.seen = nil
	s.mu.Unlock()
}

// NewModel starts an OpenAI-compatible server that answers each request
// with the reply of the first rule of run/model.json whose match is in
// its last message (a request no rule matches is a 400).
func NewModel(t testing.TB, c *Case) *httptest.Server {
	var rules []struct {
		Match string `json:"match"`
		Reply string `json:"reply"`
	}
	if spec := c.Files["run/model.json"]; spec != nil {
		if err := json.Unmarshal(spec, &rules); err != nil {
			t.Fatalf("%s: run/model.json: %v", c.Name, err)
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) == 0 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		last := req.Messages[len(req.Messages)-1].Content
		reply := ""
		for _, rule := range rules {
			if strings.Contains(last, rule.Match) {
				reply = rule.Reply
				break
			}
		}
		if reply == "" {
			http.Error(w, "no scripted reply for: "+last, http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": "x", "object": "chat.completion", "model": "test",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": reply}}},
			"usage": map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
		})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// RunFinished reads the outputs and status of apply --json's last line.
func RunFinished(out string) (status string, outputs map[string]any) {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var finished struct {
		Status  string         `json:"status"`
		Outputs map[string]any `json:"outputs"`
	}
	json.Unmarshal([]byte(lines[len(lines)-1]), &finished)
	return finished.Status, finished.Outputs
}
