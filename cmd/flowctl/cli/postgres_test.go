package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flowctl/flowctl/runtime/state/pgtest"
	_ "github.com/jackc/pgx/v5/stdlib"
)

// postgresURL is the URL of a PostgreSQL database of the test's own
// (pgtest); in CI its absence fails the test.
func postgresURL(t *testing.T) string {
	t.Helper()
	url := pgtest.URL(t, fmt.Sprintf("cli_%d", time.Now().UnixNano()))
	if url == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("no PostgreSQL for the shared-state tests: run them with .ci/with-postgres (.ci/run does)")
		}
		t.Skip("no PostgreSQL (run with .ci/with-postgres); CI runs these tests")
	}
	return url
}

const sharedFlow = `
flow "shared" {}

memory "runs" {
  type    = number
  default = 0
  value   = memory.runs + 1
}

step "slow" {
  use      = "sleep"
  duration = "500ms"
}

step "greet" {
  use   = "value"
  cache = true
  value = "hello"
}

output "greet" {
  value = step.greet.value
}

output "runs_before" {
  value = memory.runs
}
`

// TestSharedPostgresState runs two applies of one flow at once, from two
// directories, sharing a PostgreSQL state: memory counts both runs, a
// third run finds the cached step the others stored, and runs lists all
// three from either directory.
func TestSharedPostgresState(t *testing.T) {
	url := postgresURL(t)
	var dirs []string
	for i := range 3 {
		d := filepath.Join(t.TempDir(), fmt.Sprint(i))
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "shared.flow.hcl"), []byte(sharedFlow), 0o644); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, d)
	}
	apply := func(dir string) []byte {
		cmd := flowctl(t, dir, "apply", "--auto-approve", "--json", ".")
		cmd.Env = append(cmd.Env, "FLOWCTL_STATE_URL="+url)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil {
			t.Errorf("apply in %s: %v\n%s%s", dir, err, out.String(), errOut.String())
		}
		return out.Bytes()
	}
	var wg sync.WaitGroup
	for _, d := range dirs[:2] {
		wg.Go(func() { apply(d) })
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	out := apply(dirs[2])
	if got := finalOutputs(t, out)["runs_before"]; got != float64(2) {
		t.Errorf("the third run found memory runs = %v, want 2 (both concurrent runs counted)", got)
	}
	cached := false
	for _, e := range parseEvents(t, out) {
		cached = cached || e.Type == "step_finished" && e.Step == "greet" && e.Status == "cached"
	}
	if !cached {
		t.Errorf("the third run did not find step greet in the shared cache:\n%s", out)
	}
	// --state names the database as FLOWCTL_STATE_URL does.
	list := flowctl(t, dirs[0], "runs", "list", "--state", url)
	b, err := list.CombinedOutput()
	if err != nil {
		t.Fatalf("runs list: %v\n%s", err, b)
	}
	if n := strings.Count(string(b), " ok "); n != 3 {
		t.Errorf("runs list shows %d runs ok, want 3:\n%s", n, b)
	}
}
