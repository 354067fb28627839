package temporal

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/zclconf/go-cty/cty"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
)

func newKey(t *testing.T) []byte {
	t.Helper()
	b := make([]byte, 32)
	rand.Read(b)
	key, err := Key(base64.StdEncoding.EncodeToString(b))
	if err != nil {
		t.Fatal(err)
	}
	return key
}

func TestKey(t *testing.T) {
	if k, err := Key(""); k != nil || err != nil {
		t.Errorf("no key: %v, %v", k, err)
	}
	for _, bad := range []string{"not base64!", base64.StdEncoding.EncodeToString([]byte("short"))} {
		if _, err := Key(bad); err == nil || !strings.Contains(err.Error(), EnvKey) {
			t.Errorf("Key(%q) = %v", bad, err)
		}
	}
}

// TestCodecs: a large payload is kept in the state and replaced by a
// short reference; every payload is encrypted with a key, and decoding
// gives back what was encoded; another key cannot decode.
func TestCodecs(t *testing.T) {
	st, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	dc, err := DataConverter(st, newKey(t))
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("secret-ish ", LargePayload/8)
	p, err := dc.ToPayload(big)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Data) > 1024 || string(p.Metadata[converter.MetadataEncoding]) != encodingRef {
		t.Errorf("encoded: %d bytes, encoding %s; want a reference", len(p.Data), p.Metadata[converter.MetadataEncoding])
	}
	small, err := dc.ToPayload("hello")
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(small.Data, []byte("hello")) || string(small.Metadata[converter.MetadataEncoding]) != encodingEncrypted {
		t.Errorf("a small payload is not encrypted: %q", small.Data)
	}
	var got string
	if err := dc.FromPayload(p, &got); err != nil || got != big {
		t.Errorf("decoded %d bytes, %v", len(got), err)
	}
	if err := dc.FromPayload(small, &got); err != nil || got != "hello" {
		t.Errorf("decoded %q, %v", got, err)
	}
	other, _ := DataConverter(st, newKey(t))
	if err := other.FromPayload(small, &got); err == nil || !strings.Contains(err.Error(), EnvKey) {
		t.Errorf("another key decoded: %v", err)
	}
	// A reference another state does not hold.
	elsewhere, _ := state.Open(t.TempDir())
	defer elsewhere.Close()
	plain, _ := DataConverter(elsewhere, nil)
	ref := &commonpb.Payload{Metadata: map[string][]byte{converter.MetadataEncoding: []byte(encodingRef)}, Data: []byte("sha256-00")}
	if err := plain.FromPayload(ref, &got); err == nil || !strings.Contains(err.Error(), "share the state") {
		t.Errorf("an unknown reference: %v", err)
	}
}

// executeWith runs a workflow with a data converter and engine options.
func executeWith(t *testing.T, prog *compiler.Program, st *state.Store, dc converter.DataConverter, opts Options, inputs map[string]cty.Value, runID string) result {
	t.Helper()
	opts.Store = st
	e, err := NewEngine([]*compiler.Program{prog}, opts)
	if err != nil {
		t.Fatal(err)
	}
	env := newEnv(e)
	env.SetDataConverter(dc)
	in, err := NewRunInput(prog, inputs, runID, "", opts.Encrypted)
	if err != nil {
		t.Fatal(err)
	}
	env.ExecuteWorkflow(WorkflowName, in)
	res := result{store: st, runID: in.RunID, err: env.GetWorkflowError()}
	if res.err == nil {
		if err := env.GetWorkflowResult(&res.out); err != nil {
			t.Fatal(err)
		}
	}
	return res
}

// TestLargeValues: a step's outputs of several MiB, and the input of the
// step that uses them, cross by reference.
func TestLargeValues(t *testing.T) {
	body := strings.Repeat("x", 3<<20)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/big" {
			fmt.Fprint(w, body)
			return
		}
		fmt.Fprint(w, r.URL.Path)
	}))
	defer srv.Close()
	prog := compile(t, `
flow "large" {}
input "base" { type = string }
step "big" {
  use = "http"
  url = "${input.base}/big"
}
step "size" {
  use = "http"
  url = "${input.base}/${length(step.big.text)}"
}
output "size" { value = step.size.text }
`)
	st, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	dc, _ := DataConverter(st, nil)
	r := executeWith(t, prog, st, dc, Options{}, map[string]cty.Value{"base": cty.StringVal(srv.URL)}, "run-large")
	if r.err != nil || r.out.Status != "ok" {
		t.Fatalf("run: %+v %v", r.out, r.err)
	}
	if got := outputs(t, r)["size"]; got != fmt.Sprintf("/%d", len(body)) {
		t.Errorf("size = %v", got)
	}
}

// TestSensitiveInput: a sensitive input crosses only encrypted, reaches
// its step, and is recorded as "(sensitive)".
func TestSensitiveInput(t *testing.T) {
	var mu sync.Mutex
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.Path)
		mu.Unlock()
		fmt.Fprint(w, "ok")
	}))
	defer srv.Close()
	prog := compile(t, `
flow "pin" {}
input "base" { type = string }
input "pin" {
  type      = string
  sensitive = true
}
step "call" {
  use = "http"
  url = "${input.base}/${input.pin}"
}
`)
	inputs := map[string]cty.Value{"base": cty.StringVal(srv.URL), "pin": cty.StringVal("4242")}
	if _, err := NewRunInput(prog, inputs, "", "", false); err == nil || !strings.Contains(err.Error(), EnvKey) {
		t.Errorf("without a key: %v", err)
	}
	st, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	dc, _ := DataConverter(st, newKey(t))
	r := executeWith(t, prog, st, dc, Options{Encrypted: true}, inputs, "run-pin")
	if r.err != nil || r.out.Status != "ok" {
		t.Fatalf("run: %+v %v", r.out, r.err)
	}
	run, err := st.Run(r.runID)
	if err != nil || strings.Contains(string(run.Inputs), "4242") || !strings.Contains(string(run.Inputs), "(sensitive)") {
		t.Errorf("recorded inputs %s, %v", run.Inputs, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(paths) != 1 || paths[0] != "/4242" {
		t.Errorf("requests: %v", paths)
	}
}

// TestSensitiveValues: with a payload key, a step's sensitive outputs
// (derived from a secret) reach the step that uses them; without one,
// the step fails naming the key.
func TestSensitiveValues(t *testing.T) {
	var mu sync.Mutex
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.Path)
		mu.Unlock()
		fmt.Fprint(w, "ok")
	}))
	defer srv.Close()
	prog := compile(t, `
flow "secretive" {}
input "base" { type = string }
secret "token" { env = "TOKEN" }
step "derived" {
  use   = "value"
  value = upper(secret.token)
}
step "call" {
  use = "http"
  url = "${input.base}/${step.derived.value}"
}
output "status" { value = step.call.status }
`)
	lookup := func(k string) (string, bool) { return "s3cret", k == "TOKEN" }
	st, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	inputs := map[string]cty.Value{"base": cty.StringVal(srv.URL)}

	plain, _ := DataConverter(st, nil)
	r := executeWith(t, prog, st, plain, Options{LookupEnv: lookup}, inputs, "run-plain")
	if r.err != nil || r.out.Status != "failed" || !strings.Contains(r.out.Error, EnvKey) {
		t.Fatalf("without a key: %+v %v", r.out, r.err)
	}

	dc, _ := DataConverter(st, newKey(t))
	r = executeWith(t, prog, st, dc, Options{LookupEnv: lookup, Encrypted: true}, inputs, "run-encrypted")
	if r.err != nil || r.out.Status != "ok" {
		t.Fatalf("with a key: %+v %v", r.out, r.err)
	}
	// Nothing derived from the secret is stored.
	steps, err := st.Steps(r.runID)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range steps {
		if strings.Contains(string(s.Outputs), "S3CRET") || s.Step == "derived" && !s.Sensitive {
			t.Errorf("step %s recorded %s (sensitive %v)", s.Step, s.Outputs, s.Sensitive)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(paths) != 1 || paths[0] != "/S3CRET" {
		t.Errorf("requests: %v", paths)
	}
}
