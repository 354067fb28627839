package engine

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// TestOpenServed: a directory is opened with its state (made, and said
// so) and the executors; a bad --go-engine is a setting error; a state
// that cannot be opened is a diagnostic.
func TestOpenServed(t *testing.T) {
	dir := t.TempDir()
	var w bytes.Buffer
	d, err := OpenServed(ServedOptions{Dir: dir, Sandbox: SandboxInProcess, Warnings: &w})
	if err != nil {
		t.Fatal(err)
	}
	if d.Store == nil || d.Executors == nil || d.Dir != dir || !strings.Contains(w.String(), ".flowctl") {
		t.Errorf("served %+v, said %q", d, w.String())
	}
	d.Close()

	var se *SettingError
	if _, err := OpenServed(ServedOptions{Dir: dir, GoEngine: "nope", Warnings: &w}); !errors.As(err, &se) {
		t.Errorf("a bad go engine: %v", err)
	}
	notDir := filepath.Join(dir, "file")
	os.WriteFile(notDir, nil, 0o644)
	var diags hcl.Diagnostics
	if _, err := OpenServed(ServedOptions{Dir: dir, State: notDir, Sandbox: SandboxInProcess, Warnings: &w}); !errors.As(err, &diags) || diags[0].Summary != "Cannot open the state" {
		t.Errorf("a state that is a file: %v", err)
	}
}
