package cli

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// closedAddress is a loopback address where nothing listens.
func closedAddress(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func writeFlow(t *testing.T, dir, name, src string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const oneStepFlow = `flow "one" {}
step "v" {
  use   = "value"
  value = "one"
}
output "v" { value = step.v.value }
`

// TestTemporalConnectionError: no Temporal server where the flags or the
// environment say: a diagnostic that says where that address came from
// and what to do, for apply, worker and approve, in JSON too.
func TestTemporalConnectionError(t *testing.T) {
	dir := t.TempDir()
	flow := writeFlow(t, dir, "one.flow.hcl", oneStepFlow)
	addr := closedAddress(t)
	t.Setenv("TEMPORAL_ADDRESS", "")

	code, _, errOut := runCLI(t, "apply", "--engine", "temporal", "--address", addr, "--auto-approve", "--state", filepath.Join(dir, ".flowctl"), flow)
	errOut = strings.Join(strings.Fields(errOut), " ") // unwrapped
	for _, want := range []string{"Error: Cannot connect to Temporal", "No Temporal server answers at " + addr + " (given with --address)",
		"connection refused", "temporal server start-dev", "TEMPORAL_ADDRESS"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("apply: no %q in\n%s", want, errOut)
		}
	}
	if code != 1 {
		t.Errorf("apply exited %d, want 1", code)
	}

	t.Setenv("TEMPORAL_ADDRESS", addr)
	code, _, errOut = runCLI(t, "worker", "--engine", "temporal", dir)
	if code != 1 || !strings.Contains(errOut, "Cannot connect to Temporal") || !strings.Contains(errOut, "("+"from TEMPORAL_ADDRESS)") {
		t.Errorf("worker exited %d:\n%s", code, errOut)
	}

	code, out, _ := runCLI(t, "apply", "--engine", "temporal", "--auto-approve", "--json", "--state", filepath.Join(dir, ".flowctl"), flow)
	var doc struct {
		Type        string
		Diagnostics []struct{ Summary, Detail string }
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 1 || doc.Type != "diagnostics" || len(doc.Diagnostics) != 1 ||
		doc.Diagnostics[0].Summary != "Cannot connect to Temporal" || !strings.Contains(doc.Diagnostics[0].Detail, addr) {
		t.Errorf("apply --json exited %d: %s (%v)", code, out, err)
	}
}

// TestWorkerCommandLine: worker --help names the shared state and the
// flags every command spells the same; the old --namespace still works
// but warns, and may not contradict --temporal-namespace.
func TestWorkerCommandLine(t *testing.T) {
	code, out, _ := runCLI(t, "worker", "--help")
	if code != 0 {
		t.Fatalf("worker --help exited %d", code)
	}
	for _, want := range []string{"postgres://", "FLOWCTL_STATE_URL", "--temporal-namespace", "--log-format", "--address", "--task-queue"} {
		if !strings.Contains(out, want) {
			t.Errorf("worker --help does not mention %s:\n%s", want, out)
		}
	}
	if strings.Contains(out, "--namespace ") {
		t.Errorf("worker --help lists the deprecated --namespace:\n%s", out)
	}
	for _, cmd := range []string{"apply", "serve", "approve"} {
		_, out, _ := runCLI(t, cmd, "--help")
		if !strings.Contains(out, "--temporal-namespace") {
			t.Errorf("%s --help has no --temporal-namespace", cmd)
		}
	}
	addr := closedAddress(t)
	dir := t.TempDir()
	writeFlow(t, dir, "one.flow.hcl", oneStepFlow)
	if code, _, errOut := runCLI(t, "worker", "--engine", "temporal", "--address", addr, "--namespace", "a", "--temporal-namespace", "b", dir); code != 2 || !strings.Contains(errOut, "--namespace is the old name of --temporal-namespace") {
		t.Errorf("contradicting namespaces: exit %d\n%s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "worker", "--engine", "temporal", "--address", addr, "--log-format", "xml", dir); code != 2 || !strings.Contains(errOut, `unknown --log-format "xml"`) {
		t.Errorf("--log-format xml: exit %d\n%s", code, errOut)
	}
	code, _, errOut := runCLI(t, "worker", "--engine", "temporal", "--address", addr, "--namespace", "a", dir)
	if code != 1 || !strings.Contains(errOut, "Warning: worker --namespace is deprecated: use --temporal-namespace") {
		t.Errorf("--namespace: exit %d\n%s", code, errOut)
	}
}
