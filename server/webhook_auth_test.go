package server

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

const credentialFlow = `flow "creds" {}

secret "basic" {}
secret "key" {}
secret "key_name" {}

output "got" { value = "ok" }

trigger "basic" {
  webhook {
    path   = "/hooks/basic"
    verify = "basic"
    secret = secret.basic
  }
  respond = "outputs"
}

trigger "header" {
  webhook {
    path   = "/hooks/header"
    verify = "header"
    header = secret.key_name
    secret = secret.key
  }
  respond = "outputs"
}
`

// TestWebhookCredentials: verify = "basic" and "header" start a run for
// the right credential, and answer as n8n's Webhook node does otherwise:
// no Basic credential 401, a wrong one 403, a header missing or wrong
// 403, each with WWW-Authenticate: Basic realm="Webhook"; a Basic secret
// that is not user:password is the server's mistake, 500.
func TestWebhookCredentials(t *testing.T) {
	t.Setenv("FLOWCTL_SECRET_BASIC", "ada:pa:ss")
	t.Setenv("FLOWCTL_SECRET_KEY", "k-123")
	t.Setenv("FLOWCTL_SECRET_KEY_NAME", "X-Api-Key")
	ts := newTestServer(t, files{"creds.flow.hcl": credentialFlow}, nil)
	basic := func(user, pass string) string {
		return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
	}
	for _, c := range []struct {
		name, path string
		headers    []string
		code       int
		errCode    string
	}{
		{"basic right", "/hooks/basic", []string{"Authorization", basic("ada", "pa:ss")}, http.StatusOK, ""},
		{"basic none", "/hooks/basic", nil, http.StatusUnauthorized, "unauthorized"},
		{"basic not basic", "/hooks/basic", []string{"Authorization", "Bearer pa:ss"}, http.StatusUnauthorized, "unauthorized"},
		{"basic wrong password", "/hooks/basic", []string{"Authorization", basic("ada", "pa:sS")}, http.StatusForbidden, "forbidden"},
		{"basic wrong user", "/hooks/basic", []string{"Authorization", basic("bob", "pa:ss")}, http.StatusForbidden, "forbidden"},
		{"header right", "/hooks/header", []string{"x-api-key", "k-123"}, http.StatusOK, ""},
		{"header wrong", "/hooks/header", []string{"X-Api-Key", "k-12"}, http.StatusForbidden, "forbidden"},
		{"header other", "/hooks/header", []string{"X-Api-Token", "k-123"}, http.StatusForbidden, "forbidden"},
		{"header none", "/hooks/header", nil, http.StatusForbidden, "forbidden"},
	} {
		req, _ := http.NewRequest("POST", ts.url+c.path, strings.NewReader("{}"))
		req.Header.Set("Content-Type", "application/json")
		for i := 0; i+1 < len(c.headers); i += 2 {
			req.Header.Set(c.headers[i], c.headers[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var answer struct {
			Outputs map[string]any    `json:"outputs"`
			Error   map[string]string `json:"error"`
		}
		json.Unmarshal(body, &answer)
		challenge := resp.Header.Get("WWW-Authenticate")
		switch {
		case resp.StatusCode != c.code:
			t.Errorf("%s: %d %s, want %d", c.name, resp.StatusCode, body, c.code)
		case c.code == http.StatusOK && (answer.Outputs["got"] != "ok" || challenge != ""):
			t.Errorf("%s: %s, WWW-Authenticate %q", c.name, body, challenge)
		case c.code != http.StatusOK && (answer.Error["code"] != c.errCode || challenge != `Basic realm="Webhook"` || strings.Contains(string(body), "k-123")):
			t.Errorf("%s: %s, WWW-Authenticate %q", c.name, body, challenge)
		}
	}
	t.Setenv("FLOWCTL_SECRET_BASIC", "ada")
	req, _ := http.NewRequest("POST", ts.url+"/hooks/basic", strings.NewReader("{}"))
	req.Header.Set("Authorization", basic("ada", ""))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusInternalServerError || !strings.Contains(ts.logs.String(), "user:password") {
		t.Errorf("a Basic secret without a password: %d", resp.StatusCode)
	}
}
