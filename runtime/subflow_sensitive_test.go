package runtime

import (
	"fmt"
	"net/http"
	"net/http/httptest"
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
