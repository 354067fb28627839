package server

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/llm"
)

// scriptedModel answers explain's requests from a queue of replies and
// records them.
type scriptedModel struct {
	mu       sync.Mutex
	replies  []string
	requests []llm.AskRequest
}

func (m *scriptedModel) Ask(_ context.Context, req llm.AskRequest) ([]byte, blocks.Usage, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests = append(m.requests, req)
	usage := blocks.Usage{PromptTokens: 100, CompletionTokens: 20, TotalTokens: 120}
	if req.Name != "explain" || len(m.replies) == 0 {
		return nil, usage, fmt.Errorf("no reply scripted for %s", req.Name)
	}
	r := m.replies[0]
	m.replies = m.replies[1:]
	return []byte(r), usage, nil
}

func (m *scriptedModel) asked() []llm.AskRequest {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]llm.AskRequest(nil), m.requests...)
}

// The flow of the explain tests: its js block reads a field its input
// lacks, and logs the secret it is given.
const countFlow = `flow "count" {}

secret "key" {}

step "text" {
  use   = "value"
  value = { body = "one two three" }
}

step "words" {
  use  = "count_words"
  text = step.text.value
  key  = secret.key
}

output "n" {
  value     = step.words.n
  sensitive = true
}
`

func countBlock(expr string) string {
	return `block "count_words" {
  runtime = "js"
  input "text" {
    type = any
  }
  input "key" {
    type = string
  }
  output "n" {
    type = number
  }
  source = <<-JS
    function execute(input) {
      console.log("counting with " + input.key)
      return { n: ` + expr + `.split(" ").length }
    }
  JS
}
`
}

const explainSecretValue = "key-5a4b3c2d1e"

func fixReply(diagnosis, summary, block string) string {
	b, _ := json.Marshal(block)
	return fmt.Sprintf(`{"diagnosis": %q, "fix": {"summary": %q, "files": [{"path": "blocks/count_words.block.hcl", "content": %s}]}}`, diagnosis, summary, b)
}

// explainReplyJSON is the answer of POST /v1/runs/{id}/explain as the
// tests read it.
type explainReplyJSON struct {
	RunID     string `json:"run_id"`
	Diagnosis string `json:"diagnosis"`
	Proposal  *struct {
		ID       string          `json:"id"`
		Status   string          `json:"status"`
		Diff     string          `json:"diff"`
		RunID    string          `json:"run_id"`
		Evidence json.RawMessage `json:"evidence"`
	} `json:"proposal"`
	NoFixReason string `json:"no_fix_reason"`
	Checks      []struct {
		OK    bool   `json:"ok"`
		Phase string `json:"phase"`
	} `json:"checks"`
	Usage struct {
		Calls        int `json:"calls"`
		PromptTokens int `json:"prompt_tokens"`
	} `json:"usage"`
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// TestExplainAndProposals: a failed run is explained over the API with a
// scripted model: the first fix fails again and goes back, the second is
// checked and staged; the proposal is listed, shown with its diff, and
// accepted, which writes the block file, and a run then succeeds. The
// model never sees the secret's value. A second accept, an accept of a
// proposal whose file changed since, and the errors of explain are
// refused in the API's shapes.
func TestExplainAndProposals(t *testing.T) {
	t.Setenv("FLOWCTL_SECRET_KEY", explainSecretValue)
	const diagnosis = "Step words failed: input.text is an object with a body field, not a string."
	model := &scriptedModel{replies: []string{
		fixReply(diagnosis, "Count the words of the text's content.", countBlock("input.text.content")),
		fixReply(diagnosis, "Count the words of the text's body.", countBlock("input.text.body")),
	}}
	ts := newTestServer(t, files{"count.flow.hcl": countFlow, "blocks/count_words.block.hcl": countBlock("input.text")}, func(o *Options) {
		o.Model, o.ModelName = model, "test-model"
	})
	id := ts.start("count", `{}`)
	ts.wait(id, "failed")

	var ex explainReplyJSON
	if code := ts.code("POST", "/v1/runs/"+id+"/explain", `{}`, &ex); code != 200 {
		t.Fatalf("explain: %d %+v", code, ex)
	}
	if ex.Diagnosis != diagnosis || ex.Proposal == nil || ex.Proposal.Status != "staged" || ex.Proposal.RunID != id ||
		len(ex.Checks) != 2 || ex.Checks[0].OK || !ex.Checks[1].OK || ex.Usage.Calls != 2 || ex.Usage.PromptTokens != 200 {
		t.Fatalf("explain's answer: %+v", ex)
	}
	var ev struct {
		SucceededNow []string `json:"succeeded_now"`
	}
	json.Unmarshal(ex.Proposal.Evidence, &ev)
	if !strings.Contains(ex.Proposal.Diff, "+      return { n: input.text.body.split") || fmt.Sprint(ev.SucceededNow) != "[words]" {
		t.Errorf("the proposal's diff and evidence:\n%s\n%s", ex.Proposal.Diff, ex.Proposal.Evidence)
	}
	reqs := model.asked()
	if len(reqs) != 2 || !strings.Contains(reqs[0].Messages[0].Content, "counting with (sensitive)") || !strings.Contains(reqs[1].Messages[len(reqs[1].Messages)-1].Content, "step words failed again") {
		t.Errorf("the model's requests: %d", len(reqs))
	}
	for i, r := range reqs {
		for _, m := range r.Messages {
			if strings.Contains(m.Content, explainSecretValue) {
				t.Errorf("request %d holds the secret's value", i)
			}
		}
	}
	block := filepath.Join(ts.dir, "blocks", "count_words.block.hcl")
	if b, _ := os.ReadFile(block); string(b) != countBlock("input.text") {
		t.Fatal("explain wrote the block file")
	}

	var list struct {
		Proposals []struct {
			ID     string `json:"id"`
			Status string `json:"status"`
			Diff   string `json:"diff"`
		} `json:"proposals"`
	}
	if code := ts.code("GET", "/v1/proposals", "", &list); code != 200 || len(list.Proposals) != 1 || list.Proposals[0].ID != ex.Proposal.ID || list.Proposals[0].Diff != "" {
		t.Errorf("GET /v1/proposals: %d %+v", code, list)
	}
	var shown struct {
		Diff      string `json:"diff"`
		Diagnosis string `json:"diagnosis"`
	}
	if code := ts.code("GET", "/v1/proposals/"+ex.Proposal.ID, "", &shown); code != 200 || shown.Diff != ex.Proposal.Diff || shown.Diagnosis != diagnosis {
		t.Errorf("GET /v1/proposals/ID: %d %+v", code, shown)
	}
	var e runReply
	if code := ts.code("GET", "/v1/proposals/nope", "", &e); code != 404 || e.Error.Code != "not_found" {
		t.Errorf("an unknown proposal: %d %+v", code, e)
	}
	// A write without a JSON body is refused, as every write is.
	if code := ts.code("POST", "/v1/proposals/"+ex.Proposal.ID+"/accept", "", &e, "Content-Type", ""); code != 415 {
		t.Errorf("accept without JSON: %d", code)
	}
	var accepted struct {
		Status string `json:"status"`
	}
	if code := ts.code("POST", "/v1/proposals/"+ex.Proposal.ID+"/accept", `{}`, &accepted); code != 200 || accepted.Status != "accepted" {
		t.Fatalf("accept: %d %+v", code, accepted)
	}
	if b, _ := os.ReadFile(block); string(b) != countBlock("input.text.body") {
		t.Fatalf("accept did not write the fix:\n%s", b)
	}
	if code := ts.code("POST", "/v1/proposals/"+ex.Proposal.ID+"/accept", `{}`, &e); code != 409 || e.Error.Code != "not_staged" {
		t.Errorf("a second accept: %d %+v", code, e)
	}
	if run := ts.wait(ts.start("count", `{}`), "ok", "failed"); run.Status != "ok" {
		t.Errorf("a run with the fix: %+v", run)
	}

	// A run that did not fail is not explained; nor is an unknown one.
	ok := ts.start("count", `{}`)
	ts.wait(ok, "ok")
	if code := ts.code("POST", "/v1/runs/"+ok+"/explain", `{}`, &e); code != 409 || e.Error.Code != "not_failed" {
		t.Errorf("explaining a run that succeeded: %d %+v", code, e)
	}
	if code := ts.code("POST", "/v1/runs/nope/explain", `{}`, &e); code != 404 {
		t.Errorf("explaining an unknown run: %d %+v", code, e)
	}
}

// TestExplainProposalDrift: a fix whose file changed after it was
// proposed is not written (409); no_fix gives the diagnosis only; a
// rejected proposal stays unwritten; a server without a model refuses
// explain.
func TestExplainProposalDrift(t *testing.T) {
	t.Setenv("FLOWCTL_SECRET_KEY", explainSecretValue)
	model := &scriptedModel{replies: []string{
		fixReply("words failed", "Count the body.", countBlock("input.text.body")),
		`{"diagnosis": "words failed", "fix": null}`,
		fixReply("words failed", "Count the body.", countBlock("input.text.body")),
	}}
	ts := newTestServer(t, files{"count.flow.hcl": countFlow, "blocks/count_words.block.hcl": countBlock("input.text")}, func(o *Options) {
		o.Model = model
	})
	id := ts.start("count", `{}`)
	ts.wait(id, "failed")
	var ex explainReplyJSON
	if code := ts.code("POST", "/v1/runs/"+id+"/explain", `{"model": "other-model"}`, &ex); code != 200 || ex.Proposal == nil {
		t.Fatalf("explain: %d %+v", code, ex)
	}
	if m := model.asked()[0].Model; m != "other-model" {
		t.Errorf("the model asked: %q", m)
	}
	block := filepath.Join(ts.dir, "blocks", "count_words.block.hcl")
	edited := countBlock("input.text.body.trim()")
	os.WriteFile(block, []byte(edited), 0o644)
	var e runReply
	if code := ts.code("POST", "/v1/proposals/"+ex.Proposal.ID+"/accept", `{}`, &e); code != 409 || e.Error.Code != "proposal_out_of_date" ||
		!strings.Contains(e.Error.Message, "blocks/count_words.block.hcl changed since proposal "+ex.Proposal.ID) {
		t.Errorf("accepting after the file changed: %d %+v", code, e)
	}
	if b, _ := os.ReadFile(block); string(b) != edited {
		t.Error("the refused accept wrote the file")
	}
	os.WriteFile(block, []byte(countBlock("input.text")), 0o644)

	var diag explainReplyJSON
	if code := ts.code("POST", "/v1/runs/"+id+"/explain", `{"no_fix": true}`, &diag); code != 200 || diag.Diagnosis != "words failed" || diag.Proposal != nil {
		t.Errorf("no_fix: %d %+v", code, diag)
	}
	if !strings.Contains(model.asked()[1].Messages[0].Content, "Give the diagnosis only") {
		t.Error("no_fix did not ask for the diagnosis only")
	}
	if code := ts.code("POST", "/v1/runs/"+id+"/explain", `{}`, &ex); code != 200 || ex.Proposal == nil {
		t.Fatalf("explain again: %d %+v", code, ex)
	}
	var rejected struct {
		Status string `json:"status"`
	}
	if code := ts.code("POST", "/v1/proposals/"+ex.Proposal.ID+"/reject", `{}`, &rejected); code != 200 || rejected.Status != "rejected" {
		t.Errorf("reject: %d %+v", code, rejected)
	}
	if b, _ := os.ReadFile(block); string(b) != countBlock("input.text") {
		t.Error("reject wrote the file")
	}
	// The model has nothing more scripted: its error is the API's 502.
	if code := ts.code("POST", "/v1/runs/"+id+"/explain", `{}`, &e); code != 502 || e.Error.Code != "model" {
		t.Errorf("a model that fails: %d %+v", code, e)
	}
	if code := ts.code("POST", "/v1/runs/"+id+"/explain", `{"max_tokens": 10}`, &e); code != 422 || e.Error.Code != "budget" {
		t.Errorf("a budget too small: %d %+v", code, e)
	}
	if code := ts.code("POST", "/v1/runs/"+id+"/explain", `{"fix": true}`, &e); code != 400 {
		t.Errorf("an unknown field: %d %+v", code, e)
	}

	// A run refused before it started (its secret is missing) has
	// nothing to explain.
	os.Unsetenv("FLOWCTL_SECRET_KEY")
	refused := ts.start("count", `{}`)
	ts.wait(refused, "failed")
	if code := ts.code("POST", "/v1/runs/"+refused+"/explain", `{}`, &e); code != 409 || e.Error.Code != "not_started" {
		t.Errorf("explaining a run that did not start: %d %+v", code, e)
	}
	os.Setenv("FLOWCTL_SECRET_KEY", explainSecretValue)

	bare := newTestServer(t, files{"count.flow.hcl": countFlow, "blocks/count_words.block.hcl": countBlock("input.text")}, nil)
	failed := bare.start("count", `{}`)
	bare.wait(failed, "failed")
	if code := bare.code("POST", "/v1/runs/"+failed+"/explain", `{}`, &e); code != 503 || e.Error.Code != "no_model" {
		t.Errorf("a server without a model: %d %+v", code, e)
	}
}

// TestExplainNeedsToken: explain and a proposal's decision need a token
// that may run; reading proposals, one that may read.
func TestExplainNeedsToken(t *testing.T) {
	t.Setenv("FLOWCTL_SECRET_KEY", explainSecretValue)
	list, err := ParseTokens("tokens", []byte("reader read reader-token-0001\nci read,run ci-token-00000001\n"))
	if err != nil {
		t.Fatal(err)
	}
	ts := newTestServer(t, files{"count.flow.hcl": countFlow, "blocks/count_words.block.hcl": countBlock("input.text")}, func(o *Options) {
		o.Tokens, o.Model = NewTokens(list, true), &scriptedModel{replies: []string{`{"diagnosis": "words failed", "fix": null}`}}
	})
	ts.token = "ci-token-00000001"
	id := ts.start("count", `{}`)
	ts.wait(id, "failed")
	for _, c := range []struct {
		token, method, path string
		want                int
	}{
		{"", "POST", "/v1/runs/" + id + "/explain", 401},
		{"", "GET", "/v1/proposals", 401},
		{"reader-token-0001", "POST", "/v1/runs/" + id + "/explain", 403},
		{"reader-token-0001", "POST", "/v1/proposals/x/accept", 403},
		{"reader-token-0001", "POST", "/v1/proposals/x/reject", 403},
		{"reader-token-0001", "GET", "/v1/proposals", 200},
		{"reader-token-0001", "GET", "/v1/proposals/x", 404},
		{"ci-token-00000001", "POST", "/v1/runs/" + id + "/explain", 200},
	} {
		ts.token = c.token
		var e runReply
		if code := ts.code(c.method, c.path, `{}`, &e); code != c.want {
			t.Errorf("%s %s with %q: %d, want %d: %+v", c.method, c.path, c.token, code, c.want, e)
		}
	}
}
