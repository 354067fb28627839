package server

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/flowctl/flowctl/runtime/state"
	"github.com/flowctl/flowctl/thinker"
)

// proposalTokens: a runner, an author, and one who may author and approve.
const proposalTokens = "ci read,run ci-token-00000001\nauthor read,author author-token-0001\nlead read,author,approve lead-token-000001\n"

func authHeader(token string) []string { return []string{"Authorization", "Bearer " + token} }

// stage records a proposal that writes review.flow.hcl with content.
func (ts *testServer) stage(content string) string {
	ts.t.Helper()
	old, err := os.ReadFile(filepath.Join(ts.dir, "review.flow.hcl"))
	if err != nil {
		ts.t.Fatal(err)
	}
	// Paths are relative to the state's base: the state's directory's
	// parent, or with PostgreSQL the working directory.
	base, err := filepath.Abs(thinker.ProposalBase(ts.store))
	if err != nil {
		ts.t.Fatal(err)
	}
	rel, err := filepath.Rel(base, filepath.Join(ts.dir, "review.flow.hcl"))
	if err != nil {
		ts.t.Fatal(err)
	}
	p := &state.Proposal{Flow: "review", FlowFile: filepath.Join(ts.dir, "review.flow.hcl"), Intent: "change the review",
		Files: []state.ProposalFile{{Path: rel, BaseSHA256: thinker.SHA256Hex(old), Content: content}}}
	if err := ts.store.CreateProposal(p); err != nil {
		ts.t.Fatal(err)
	}
	return p.ID
}

// reviewFlowNoApproval is reviewFlow with its approval step removed.
var reviewFlowNoApproval = strings.Replace(strings.Replace(reviewFlow,
	"step \"check\" {\n  use     = \"approval\"\n  message = \"Publish it?\"\n}\n\n", "", 1),
	"  depends_on = [step.check]\n", "", 1)

// TestProposalRoles: deciding a proposal takes role author, not run; one
// that weakens the flow (here: removes its approval step) takes approve as
// well, and says so. (Issue 47: a read,run token accepted a proposal that
// removed an approval.)
func TestProposalRoles(t *testing.T) {
	list, err := ParseTokens("tokens", []byte(proposalTokens))
	if err != nil {
		t.Fatal(err)
	}
	if !list[1].Allows(RoleAuthor) || list[1].Allows(RoleRun) || !SingleToken("x")[0].Allows(RoleAuthor) {
		t.Fatalf("the roles: %+v", list)
	}
	ts := newTestServer(t, files{"review.flow.hcl": reviewFlow}, func(o *Options) { o.Tokens = NewTokens(list, true) })
	ts.token = "ci-token-00000001"
	harmless := ts.stage(strings.Replace(reviewFlow, "Publish it?", "Publish the draft?", 1))
	var e runReply
	for _, verb := range []string{"accept", "reject"} {
		if code := ts.code("POST", "/v1/proposals/"+harmless+"/"+verb, `{}`, &e, authHeader("ci-token-00000001")...); code != 403 || !strings.Contains(e.Error.Message, "accept or reject proposals (role author)") {
			t.Errorf("a runner may %s: %d %+v", verb, code, e)
		}
	}
	var shown struct {
		Status     string            `json:"status"`
		Weakens    bool              `json:"weakens"`
		Weakenings []state.Weakening `json:"weakenings"`
		Error      struct{ Code, Message string }
	}
	if code := ts.code("POST", "/v1/proposals/"+harmless+"/accept", `{}`, &shown, authHeader("author-token-0001")...); code != 200 || shown.Status != "accepted" {
		t.Fatalf("an author accepts: %d %+v", code, shown)
	}
	b, _ := os.ReadFile(filepath.Join(ts.dir, "review.flow.hcl"))
	if !strings.Contains(string(b), "Publish the draft?") {
		t.Fatal("the accepted proposal was not written")
	}
	if code := ts.code("POST", "/v1/proposals/"+ts.stage(string(b))+"/reject", `{}`, &shown, authHeader("author-token-0001")...); code != 200 || shown.Status != "rejected" {
		t.Errorf("an author rejects: %d %+v", code, shown)
	}

	weak := ts.stage(strings.Replace(reviewFlowNoApproval, "Publish it?", "Publish the draft?", 1))
	if code := ts.code("GET", "/v1/proposals/"+weak, "", &shown); code != 200 || !shown.Weakens || len(shown.Weakenings) != 1 ||
		shown.Weakenings[0].Kind != thinker.WeakApproval || shown.Weakenings[0].Subject != `step "check"` {
		t.Errorf("GET of the weakening proposal: %d %+v", code, shown)
	}
	for _, tok := range []string{"ci-token-00000001", "author-token-0001"} {
		if code := ts.code("POST", "/v1/proposals/"+weak+"/accept", `{}`, &e, authHeader(tok)...); code != 403 {
			t.Errorf("%s accepts a weakening: %d %+v", tok, code, e)
		}
	}
	if !strings.Contains(e.Error.Message, "weakens the flow, so accepting it takes roles author and approve") || !strings.Contains(e.Error.Message, `The approval step "check" is removed.`) {
		t.Errorf("the refusal: %s", e.Error.Message)
	}
	if b2, _ := os.ReadFile(filepath.Join(ts.dir, "review.flow.hcl")); string(b2) != string(b) {
		t.Fatal("a refused accept wrote the flow")
	}
	// An author may reject it; one who may also approve accepts another.
	if code := ts.code("POST", "/v1/proposals/"+weak+"/reject", `{}`, &shown, authHeader("author-token-0001")...); code != 200 || shown.Status != "rejected" {
		t.Errorf("an author rejects a weakening: %d %+v", code, shown)
	}
	weak = ts.stage(reviewFlowNoApproval)
	if code := ts.code("POST", "/v1/proposals/"+weak+"/accept", `{}`, &shown, authHeader("lead-token-000001")...); code != 200 || shown.Status != "accepted" {
		t.Errorf("author and approve accept a weakening: %d %+v", code, shown)
	}
}

// TestExplainCannotDropApproval is the attack of issue 47 as a client
// would make it: a token with read,run starts a run, cancels it while it
// waits for its approval, asks explain for a fix, and the model's fix
// removes the approval. The proposal says it weakens the flow, and the
// token may not accept it (403), nor may an author alone; the flow file
// keeps its approval.
func TestExplainCannotDropApproval(t *testing.T) {
	list, err := ParseTokens("tokens", []byte(proposalTokens))
	if err != nil {
		t.Fatal(err)
	}
	content, _ := json.Marshal(reviewFlowNoApproval)
	model := &scriptedModel{replies: []string{fmt.Sprintf(`{"diagnosis": "The run was cancelled while it waited for step check.",
		"fix": {"summary": "Publish without waiting.", "files": [{"path": "review.flow.hcl", "content": %s}]}}`, content)}}
	ts := newTestServer(t, files{"review.flow.hcl": reviewFlow}, func(o *Options) {
		o.Tokens, o.Model, o.ModelName = NewTokens(list, true), model, "test-model"
	})
	ts.token = "ci-token-00000001"
	id := ts.start("review", `{}`, authHeader("ci-token-00000001")...)
	ts.wait(id, "waiting")
	if code := ts.code("POST", "/v1/runs/"+id+"/cancel", `{}`, nil, authHeader("ci-token-00000001")...); code != 200 {
		t.Fatalf("cancel: %d", code)
	}
	ts.wait(id, "cancelled")
	var ex struct {
		Proposal *struct {
			ID         string            `json:"id"`
			Weakens    bool              `json:"weakens"`
			Weakenings []state.Weakening `json:"weakenings"`
		} `json:"proposal"`
		NoFixReason string `json:"no_fix_reason"`
	}
	if code := ts.code("POST", "/v1/runs/"+id+"/explain", `{}`, &ex, authHeader("ci-token-00000001")...); code != 200 || ex.Proposal == nil {
		t.Fatalf("explain: %d %+v", code, ex)
	}
	if !ex.Proposal.Weakens || len(ex.Proposal.Weakenings) != 1 || ex.Proposal.Weakenings[0].Kind != thinker.WeakApproval {
		t.Errorf("the proposal's weakenings: %+v", ex.Proposal)
	}
	if p, err := ts.store.Proposal(ex.Proposal.ID); err != nil || len(p.Weakenings) != 1 {
		t.Errorf("the recorded proposal: %+v %v", p, err)
	}
	var e runReply
	if code := ts.code("POST", "/v1/proposals/"+ex.Proposal.ID+"/accept", `{}`, &e, authHeader("ci-token-00000001")...); code != 403 {
		t.Errorf("the runner accepts the fix: %d %+v", code, e)
	}
	if code := ts.code("POST", "/v1/proposals/"+ex.Proposal.ID+"/accept", `{}`, &e, authHeader("author-token-0001")...); code != 403 || e.Error.Code != "forbidden" {
		t.Errorf("an author alone accepts the fix: %d %+v", code, e)
	}
	if b, _ := os.ReadFile(filepath.Join(ts.dir, "review.flow.hcl")); string(b) != reviewFlow {
		t.Fatalf("the flow file changed:\n%s", b)
	}
	if p, _ := ts.store.Proposal(ex.Proposal.ID); p.Status != state.ProposalStaged {
		t.Errorf("the proposal is %s", p.Status)
	}
}

// TestProposalReadOnlyDirectory: a server whose directory cannot be written
// (deploy/flowctl.service makes it read-only) answers an accept with 409
// read_only, saying where to accept it, not 500.
func TestProposalReadOnlyDirectory(t *testing.T) {
	ts := newTestServer(t, files{"review.flow.hcl": reviewFlow}, nil)
	p, err := ts.store.Proposal(ts.stage(strings.Replace(reviewFlow, "Publish it?", "Publish the draft?", 1)))
	if err != nil {
		t.Fatal(err)
	}
	for _, cause := range []error{syscall.EROFS, syscall.EACCES} {
		w := httptest.NewRecorder()
		err := fmt.Errorf("writing review.flow.hcl: %w", &fs.PathError{Op: "open", Path: "review.flow.hcl", Err: cause})
		ts.srv.decided(w, httptest.NewRequest("POST", "/v1/proposals/"+p.ID+"/accept", nil), p, err)
		if w.Code != 409 || !strings.Contains(w.Body.String(), `"read_only"`) || !strings.Contains(w.Body.String(), "in a checkout") ||
			!strings.Contains(w.Body.String(), cause.Error()) {
			t.Errorf("%v: %d %s", cause, w.Code, w.Body.String())
		}
	}
}
