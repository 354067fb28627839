package server

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

func TestParseTokens(t *testing.T) {
	sum := sha256.Sum256([]byte("s3cret"))
	list, err := ParseTokens("tokens", []byte("# name roles token\n\nci run ci-token-00000001\nana read,approve sha256:"+hex.EncodeToString(sum[:])+"\n"))
	if err != nil || len(list) != 2 || list[0].Name != "ci" || !list[0].Allows(RoleRun) || list[0].Allows(RoleRead) ||
		!list[1].matches("s3cret") || list[1].matches("sha256:"+hex.EncodeToString(sum[:])) || !list[1].Allows(RoleApprove) {
		t.Fatalf("%+v %v", list, err)
	}
	for _, bad := range []struct{ src, want string }{
		{"ci run", "tokens:1: a line is NAME ROLES TOKEN"},
		{"ci admin t", `tokens:1: unknown role "admin"`},
		{"ci run ci-token-00000001\nci read ci-token-00000002", `tokens:2: a second token named "ci"`},
		{"ci run ci-token-00000001\nbob read ci-token-00000001", `tokens:2: token "bob" is the same as an earlier one`},
		{"ci run s3cret", `tokens:1: token "ci": a token has at least 16 characters, not 6`},
		{"ci run s3cret\nbob read x", `tokens:2: token "bob": a token has at least 16 characters, not 1`}, // every line's error
		{"ci run sha256:12", "tokens:1: sha256: is followed by the 64 hex digits"},
		{"# nothing\n", "tokens holds no token"},
	} {
		if _, err := ParseTokens("tokens", []byte(bad.src)); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: %v, want %q", bad.src, err, bad.want)
		}
	}
}

// TestTokensRoles: each token may do what its roles say; an approval is
// recorded as decided by the token's name, which the body cannot change;
// a rotation (Set) takes effect at once.
func TestTokensRoles(t *testing.T) {
	list, err := ParseTokens("tokens", []byte("reader read reader-token-0001\nci read,run ci-token-00000001\nana read,approve ana-token-0000001\n"))
	if err != nil {
		t.Fatal(err)
	}
	tokens := NewTokens(list, true)
	ts := newTestServer(t, files{"review.flow.hcl": reviewFlow}, func(o *Options) { o.Tokens = tokens })
	as := func(token string) []string { return []string{"Authorization", "Bearer " + token} }
	if code := ts.code("GET", "/v1/runs", "", nil); code != 401 {
		t.Errorf("no token: %d", code)
	}
	if code := ts.code("GET", "/v1/runs", "", nil, as("nope")...); code != 401 {
		t.Errorf("a wrong token: %d", code)
	}
	if code := ts.code("GET", "/", "", nil); code != 200 {
		t.Errorf("the dashboard's page: %d", code)
	}
	var rr runReply
	if code := ts.code("POST", "/v1/flows/review/runs", `{}`, &rr, as("reader-token-0001")...); code != 403 || !strings.Contains(rr.Error.Message, "reader") {
		t.Errorf("a reader starts a run: %d %+v", code, rr)
	}
	run := ts.start("review", `{}`, as("ci-token-00000001")...)
	ts.token = "reader-token-0001"
	ts.wait(run, "waiting")
	if code := ts.code("POST", "/v1/runs/"+run+"/approvals/check", `{"approved": true}`, nil, as("ci-token-00000001")...); code != 403 {
		t.Errorf("a runner decides: %d", code)
	}
	if code := ts.code("POST", "/v1/runs/"+run+"/approvals/check", `{"approved": true, "by": "boss"}`, nil, as("ana-token-0000001")...); code != 400 {
		t.Errorf("a decision that says another's name: %d", code)
	}
	var decided struct {
		By string `json:"by"`
	}
	if code := ts.code("POST", "/v1/runs/"+run+"/approvals/check", `{"approved": true}`, &decided, as("ana-token-0000001")...); code != 200 || decided.By != "ana" {
		t.Errorf("ana decides: %d %+v", code, decided)
	}
	ts.wait(run, "ok")
	if a, err := ts.store.Approval(run, "check", ""); err != nil || a.By != "ana" {
		t.Errorf("the recorded decision: %+v %v", a, err)
	}
	// Rotation.
	tokens.Set(SingleToken("new"))
	if code := ts.code("GET", "/v1/runs", "", nil, as("reader-token-0001")...); code != 401 {
		t.Errorf("a rotated token: %d", code)
	}
	if code := ts.code("GET", "/v1/runs", "", nil, as("new")...); code != 200 {
		t.Errorf("the new token: %d", code)
	}
}
