package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestReadmeServe runs the README's "Serving flows" commands as written,
// against a real flowctl serve examples of a copy of the examples: only
// the address (the README's 8080) and the run's id are put in.
func TestReadmeServe(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("curl is needed")
		}
		t.Skip("no curl")
	}
	readme := docsFile(t, "README.md")
	var lines []string
	for _, l := range section(t, "README.md", readme, "## Serving flows", "```\n", "See [") {
		if strings.HasPrefix(l, "curl ") {
			lines = append(lines, strings.TrimSpace(strings.SplitN(l, "  #", 2)[0]))
		}
	}
	if len(lines) != 3 {
		t.Fatalf("the README's serve example has %d curl commands, want 3: %q", len(lines), lines)
	}
	// flowctl serve examples &, from the directory holding examples/.
	dir := t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "examples"), os.DirFS("../../../examples")); err != nil {
		t.Fatal(err)
	}
	p := startServe(t, dir, nil, "examples")
	host := strings.TrimPrefix(p.url, "http://")
	run := func(line string) string {
		t.Helper()
		line = strings.ReplaceAll(line, "localhost:8080", host)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		out, err := exec.CommandContext(ctx, "bash", "-c", line).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", line, err, out)
		}
		return string(out)
	}

	// Start a run: 202 with its id, not 415 for a missing content type.
	var started struct {
		RunID  string `json:"run_id"`
		Status string `json:"status"`
	}
	out := run(lines[0])
	if err := json.Unmarshal([]byte(out), &started); err != nil || started.RunID == "" {
		t.Fatalf("%s answered %s", lines[0], out)
	}
	// Its events, to the end of the run.
	out = run(strings.ReplaceAll(lines[1], "RUN_ID", started.RunID))
	if !strings.Contains(out, "event: run_finished") || !strings.Contains(out, `"Hello, Ada!"`) {
		t.Errorf("%s printed %s", lines[1], out)
	}
	// hello waits for no approval: the answer says so (and is not 415).
	out = run(strings.ReplaceAll(lines[2], "RUN_ID", started.RunID))
	if strings.Contains(out, "unsupported_media_type") || !strings.Contains(out, `"not_waiting"`) {
		t.Errorf("%s answered %s", lines[2], out)
	}
}
