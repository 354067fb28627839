package cli

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestFlowTestLive: an unmocked http step is an error unless --live, and
// with --live it calls the server.
func TestFlowTestLive(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		fmt.Fprint(w, "pong")
	}))
	defer srv.Close()
	dir := t.TempDir()
	flow := fmt.Sprintf("flow \"l\" {}\n\nstep \"ping\" {\n  use = \"http\"\n  url = %q\n}\n\noutput \"body\" {\n  value = step.ping.body\n}\n", srv.URL)
	test := "test \"live\" {\n  assert {\n    condition     = output.body == \"pong\"\n    error_message = \"the server answers\"\n  }\n}\n"
	os.WriteFile(filepath.Join(dir, "l.flow.hcl"), []byte(flow), 0o644)
	os.WriteFile(filepath.Join(dir, "l.test.hcl"), []byte(test), 0o644)
	run := func(args ...string) (int, string) {
		var out, errOut bytes.Buffer
		code := Run(append([]string{"test"}, append(args, dir)...), streams{in: &bytes.Buffer{}, out: &out, err: &errOut})
		return code, out.String() + errOut.String()
	}
	if code, out := run(); code != 1 || !strings.Contains(out, "ERROR live") || !strings.Contains(out, `Step "ping" calls the network (http)`) || calls.Load() != 0 {
		t.Fatalf("without --live: exit %d, %d calls:\n%s", code, calls.Load(), out)
	}
	if code, out := run("--live", "--http-allow", "127.0.0.1"); code != 0 || !strings.Contains(out, "PASS live") || calls.Load() != 1 {
		t.Fatalf("with --live: exit %d, %d calls:\n%s", code, calls.Load(), out)
	}
}
