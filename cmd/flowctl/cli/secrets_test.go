package cli

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// secretForms are the texts under which a secret could leak: as it is,
// escaped for a URL path or query, quoted as Go or JSON strings, and in
// base64.
func secretForms(s string) map[string]string {
	unquote := func(q string) string { return q[1 : len(q)-1] }
	js, _ := json.Marshal(s)
	return map[string]string{
		"raw":          s,
		"path-escaped": url.PathEscape(s),
		"query":        url.QueryEscape(s),
		"go-quoted":    unquote(strconv.Quote(s)),
		"ascii-quoted": unquote(strconv.QuoteToASCII(s)),
		"json":         unquote(string(js)),
		"base64":       base64.StdEncoding.EncodeToString([]byte(s)),
		"base64url":    base64.RawURLEncoding.EncodeToString([]byte(s)),
	}
}

// TestSecretInEveryEncoding runs the error paths of every built-in block
// with a secret full of characters that errors escape (a space, @, ", \, a
// tab, non-ASCII), and looks for every encoding of it on stdout and
// stderr of apply (for people and --json), runs show and list, output, and
// in every byte of the state.
func TestSecretInEveryEncoding(t *testing.T) {
	for _, secret := range []string{"p@ss word!x", `abc"defgh`, "p@ss word!x\"\\\t€z9", "ünïcödé/sécret?&="} {
		t.Run(strconv.Quote(secret), func(t *testing.T) { testSecretEncodings(t, secret) })
	}
}

func testSecretEncodings(t *testing.T, secret string) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Echo what the request carried, as a careless server would.
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		b, _ := json.Marshal(map[string]any{"error": map[string]any{
			"message": fmt.Sprintf("nothing at %s for %q (auth %q)", r.URL.String(), r.Header.Get("X-Key"), r.Header.Get("Authorization")),
		}})
		w.Write(b)
	}))
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "test")

	dir := t.TempDir()
	flow := fmt.Sprintf(`flow "leaky" {}

secret "tok" {}

step "http_path" {
  use      = "http"
  url      = "http://127.0.0.1:1/p/${secret.tok}"
  on_error = "continue"
}

step "http_host" {
  use      = "http"
  url      = "http://${secret.tok}.example/"
  on_error = "continue"
}

step "http_query_echo" {
  use      = "http"
  url      = "%[1]s/q"
  query    = { token = secret.tok }
  headers  = { X-Key = secret.tok }
  on_error = "continue"
}

step "http_path_echo" {
  use      = "http"
  url      = "%[1]s/p/${secret.tok}"
  on_error = "continue"
}

step "http_method" {
  use      = "http"
  url      = "%[1]s/m"
  method   = secret.tok
  on_error = "continue"
}

step "http_header_name" {
  use      = "http"
  url      = "%[1]s/h"
  headers  = { "X-${secret.tok}" = "v" }
  on_error = "continue"
}

step "file_missing" {
  use      = "file"
  path     = "a/${secret.tok}"
  on_error = "continue"
}

step "file_escape" {
  use      = "file"
  path     = "../${secret.tok}"
  on_error = "continue"
}

step "scrape_path" {
  use      = "scrape"
  url      = "http://127.0.0.1:1/s/${secret.tok}"
  on_error = "continue"
}

step "scrape_selector" {
  use      = "scrape"
  url      = "%[1]s/s"
  selector = "div[${secret.tok}"
  on_error = "continue"
}

step "sleep_duration" {
  use      = "sleep"
  duration = secret.tok
  on_error = "continue"
}

step "value_function" {
  use      = "value"
  value    = tonumber(secret.tok)
  on_error = "continue"
}

step "llm_model" {
  use      = "llm"
  prompt   = "hello"
  model    = secret.tok
  on_error = "continue"
}
`, srv.URL)
	if err := os.WriteFile(filepath.Join(dir, "leaky.flow.hcl"), []byte(flow), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "leaky.flow.hcl")
	var streams [][]byte
	var runID string
	for _, args := range [][]string{
		{"apply", "--auto-approve", path},
		{"apply", "--auto-approve", "--json", path},
		{"runs", "list", "--json", "--flow", path},
		{"runs", "list", "--flow", path},
		{"output", "--flow", path},
	} {
		if args[0] == "apply" {
			args = append(args, "--secret", "tok="+secret)
		}
		code, out, errOut := runIn(args...)
		if args[0] == "apply" && code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out, errOut)
		}
		if args[0] == "apply" && args[2] == "--json" {
			for _, line := range strings.Split(out, "\n") {
				var e struct {
					RunID string `json:"run_id"`
				}
				if json.Unmarshal([]byte(line), &e) == nil && e.RunID != "" {
					runID = e.RunID
				}
			}
		}
		streams = append(streams, []byte(out), []byte(errOut))
	}
	for _, args := range [][]string{{"runs", "show", runID, "--flow", path}, {"runs", "show", runID, "--json", "--flow", path}} {
		_, out, errOut := runIn(args...)
		streams = append(streams, []byte(out), []byte(errOut))
	}
	// Every error path ran and failed.
	all := string(bytes.Join(streams, nil))
	for _, step := range []string{"http_path", "http_host", "http_query_echo", "http_path_echo", "http_method", "http_header_name",
		"file_missing", "file_escape", "scrape_path", "scrape_selector", "sleep_duration", "value_function", "llm_model"} {
		if !strings.Contains(all, `"step":"`+step+`","instance":null,"status":"failed"`) {
			t.Errorf("step %s did not fail", step)
		}
	}
	if !strings.Contains(all, "(sensitive)") {
		t.Error("nothing was shown as (sensitive)")
	}
	forms := secretForms(secret)
	assertNoSecretForms(t, forms, streams, filepath.Join(dir, ".flowctl"))
}

// assertNoSecretForms fails the test for each form of a secret found in
// the streams or in any file under stateDir.
func assertNoSecretForms(t *testing.T, forms map[string]string, streams [][]byte, stateDir string) {
	t.Helper()
	for i, s := range streams {
		for name, form := range forms {
			if bytes.Contains(s, []byte(form)) {
				t.Errorf("stream %d holds the secret %s (%q):\n%s", i, name, form, s)
			}
		}
	}
	filepath.WalkDir(stateDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for name, form := range forms {
			if bytes.Contains(b, []byte(form)) {
				t.Errorf("%s holds the secret %s (%q)", p, name, form)
			}
		}
		return nil
	})
}
