package runtime

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/lang"
	"github.com/zclconf/go-cty/cty"
)

// TestSubFlowSensitiveInput: a secret given to an input the used flow
// declares sensitive (a token for its request's header) does not make the
// step's outputs sensitive — the flow's compilation refuses an output
// derived from it — so the answer is recorded and passed on as it is;
// given to an input the flow does not declare sensitive, it does.
func TestSubFlowSensitiveInput(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"ok": true, "auth": %t}`, r.Header.Get("Authorization") == "Bearer s3cret-token")
	}))
	defer srv.Close()
	child := `flow "send" {}

input "token" {
  type      = string
  sensitive = true
}

input "text" {
  type = string
}

step "post" {
  use     = "http"
  method  = "POST"
  url     = "` + srv.URL + `"
  headers = { authorization = "Bearer ${input.token}" }
  body    = { text = input.text }
}

output "answer" {
  value = step.post.body
}
`
	prog := compileFiles(t, "main.flow.hcl", `flow "main" {}

secret "token" {}

step "send" {
  use   = "flow.send"
  token = secret.token
  text  = "hi"
}

step "echo" {
  use   = "flow.send"
  token = "t"
  text  = secret.token
}

output "answer" {
  value     = step.send.answer
  sensitive = true
}
`, map[string]string{"send.flow.hcl": child})
	res, rec := apply(t, prog, Options{Secrets: map[string]string{"token": "s3cret-token"}})
	if res.Status != StatusOK {
		t.Fatalf("status %s: %v", res.Status, res.Diagnostics)
	}
	f := rec.finished()
	if got := f["send"].Outputs; got == cty.NilVal || got.IsNull() || lang.IsSensitive(got) || outputJSON(t, got) != `{"answer":{"auth":true,"ok":true}}` {
		t.Errorf("send's outputs: %#v", got)
	}
	if got := f["echo"].Outputs; got != cty.NilVal && !got.IsNull() && !lang.IsSensitive(got) {
		t.Errorf("echo's outputs are not sensitive: %s", outputJSON(t, got))
	}
}

// TestSecretsOfUsedFlows: --secret may set a secret that only a flow used
// two levels down declares, and it reaches that flow (the flow between
// does not declare it, so it cannot read it); a secret no flow declares
// is refused, naming those that are.
func TestSecretsOfUsedFlows(t *testing.T) {
	leaf := `flow "leaf" {}

secret "token" {}

step "n" {
  use   = "value"
  value = length(secret.token)
}

output "n" {
  value     = step.n.value
  sensitive = true
}
`
	middle := `flow "middle" {}

step "leaf" {
  use = "flow.leaf"
}

output "n" {
  value     = step.leaf.n
  sensitive = true
}
`
	prog := compileFiles(t, "main.flow.hcl", `flow "main" {}

step "middle" {
  use = "flow.middle"
}

output "n" {
  value     = step.middle.n
  sensitive = true
}
`, map[string]string{"middle.flow.hcl": middle, "leaf.flow.hcl": leaf})
	none := func(string) (string, bool) { return "", false }
	res, _ := apply(t, prog, Options{Secrets: map[string]string{"token": "four"}, LookupEnv: none})
	if res.Status != StatusOK {
		t.Fatalf("status %s: %v", res.Status, res.Diagnostics)
	}
	if v, _ := res.Outputs["n"].Unmark(); !v.RawEquals(cty.NumberIntVal(4)) {
		t.Errorf("output n = %#v, want 4 (the secret's length)", res.Outputs["n"])
	}
	res, _ = apply(t, prog, Options{Secrets: map[string]string{"tokn": "four"}, LookupEnv: none})
	if res.Status == StatusOK || len(res.Diagnostics) == 0 || !strings.Contains(res.Diagnostics[0].Detail, `--secret tokn sets a secret that neither flow "main" nor a flow it uses declares. Did you mean "token"?`) {
		t.Errorf("an unknown secret: %s %v", res.Status, res.Diagnostics)
	}
}
