package cli

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/runtime/state"
)

const cachedFlow = `
flow "cached" {}

step "greet" {
  use   = "value"
  cache = true
  value = "hello"
}

step "twice" {
  use   = "value"
  cache = true
  value = "${step.greet.value} ${step.greet.value}"
}
`

// run runs flowctl in dir with env added, and returns its output and
// exit code.
func run(t *testing.T, dir string, env []string, args ...string) (string, int) {
	t.Helper()
	cmd := flowctl(t, dir, args...)
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return string(out), exit.ExitCode()
	case err != nil:
		t.Fatalf("flowctl %s: %v", strings.Join(args, " "), err)
	}
	return string(out), 0
}

// TestPlanSeesPostgresCache: right after an apply on a PostgreSQL state,
// plan finds every step in the cache, as on SQLite (plan looked for the
// state as a directory, and a URL is none).
func TestPlanSeesPostgresCache(t *testing.T) {
	url := postgresURL(t)
	dir := t.TempDir()
	writeFlow(t, dir, "cached.flow.hcl", cachedFlow)
	env := []string{"FLOWCTL_STATE_URL=" + url}
	if out, code := run(t, dir, env, "plan", "--detailed-exitcode", "cached.flow.hcl"); code != 2 {
		t.Fatalf("plan before any apply: exit %d, want 2\n%s", code, out)
	}
	if out, code := run(t, dir, env, "apply", "--auto-approve", "cached.flow.hcl"); code != 0 {
		t.Fatalf("apply: exit %d\n%s", code, out)
	}
	out, code := run(t, dir, env, "plan", "--detailed-exitcode", "cached.flow.hcl")
	if code != 0 || strings.Count(out, "= cached") != 2 {
		t.Fatalf("plan after the apply: exit %d, want 0 with both steps cached\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(dir, ".flowctl")); err == nil {
		t.Error("plan or apply made a .flowctl directory beside a PostgreSQL state")
	}
}

// TestSavedPlanAppliedOnce: a saved plan is applied once; the second
// apply of it is refused, saying to make a new plan, and runs nothing.
func TestSavedPlanAppliedOnce(t *testing.T) {
	dir := t.TempDir()
	writeFlow(t, dir, "cached.flow.hcl", cachedFlow)
	if out, code := run(t, dir, nil, "plan", "--out", "p.json", "cached.flow.hcl"); code != 0 {
		t.Fatalf("plan --out: exit %d\n%s", code, out)
	}
	if out, code := run(t, dir, nil, "apply", "p.json"); code != 0 {
		t.Fatalf("apply p.json: exit %d\n%s", code, out)
	}
	out, code := run(t, dir, nil, "apply", "p.json")
	if code != 1 || !strings.Contains(out, "Saved plan already applied") || !strings.Contains(out, "flowctl plan --out") {
		t.Fatalf("second apply of p.json: exit %d, want 1 and a refusal\n%s", code, out)
	}
	list, _ := run(t, dir, nil, "runs", "list", "--json")
	if n := strings.Count(list, `"status"`); n != 1 {
		t.Fatalf("%d runs recorded, want 1 (the refused apply ran nothing)\n%s", n, list)
	}
	// A plan file of an older flowctl, without an id, is applied once too.
	b, err := os.ReadFile(filepath.Join(dir, "p.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil || m["id"] == nil {
		t.Fatalf("the saved plan has no id: %v %s", err, b)
	}
	delete(m, "id")
	b, _ = json.Marshal(m)
	os.WriteFile(filepath.Join(dir, "old.json"), b, 0o644)
	if out, code := run(t, dir, nil, "apply", "old.json"); code != 0 {
		t.Fatalf("apply old.json: exit %d\n%s", code, out)
	}
	if out, code := run(t, dir, nil, "apply", "old.json"); code != 1 || !strings.Contains(out, "Saved plan already applied") {
		t.Fatalf("second apply of old.json: exit %d\n%s", code, out)
	}
	// A new plan applies.
	run(t, dir, nil, "plan", "--out", "p.json", "cached.flow.hcl")
	if out, code := run(t, dir, nil, "apply", "p.json"); code != 0 {
		t.Fatalf("apply of a new plan: exit %d\n%s", code, out)
	}
}

// TestStateMigrate: a process refuses a shared state of an older schema,
// naming the version and the command; state migrate --dry-run shows the
// SQL and changes nothing; state migrate upgrades it; --migrate does too.
func TestStateMigrate(t *testing.T) {
	url := postgresURL(t)
	dir := t.TempDir()
	writeFlow(t, dir, "cached.flow.hcl", cachedFlow)
	env := []string{"FLOWCTL_STATE_URL=" + url}
	if out, code := run(t, dir, env, "apply", "--auto-approve", "cached.flow.hcl"); code != 0 {
		t.Fatalf("apply: exit %d\n%s", code, out)
	}
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	old := state.SchemaVersion() - 1
	if old != 21 {
		t.Fatalf("the newest migration is %d: undo it in downgrade", old+1)
	}
	downgrade := func() {
		t.Helper()
		// The newest migration (22, runtime/state/schema.go), undone.
		for _, q := range []string{
			`DROP TABLE run_versions`, `DROP TABLE flow_versions`, `DROP TABLE run_pauses`,
			`ALTER TABLE approvals DROP COLUMN fields`, `ALTER TABLE approvals DROP COLUMN inputs`,
			fmt.Sprintf(`UPDATE schema_version SET version = %d`, old),
		} {
			if _, err := db.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
	}
	downgrade()
	out, code := run(t, dir, env, "apply", "--auto-approve", "cached.flow.hcl")
	if code != 1 || !strings.Contains(out, "State schema out of date") ||
		!strings.Contains(out, fmt.Sprintf("schema version %d", old)) || !strings.Contains(out, "flowctl state migrate") {
		t.Fatalf("apply on an older schema: exit %d\n%s", code, out)
	}
	out, code = run(t, dir, env, "state", "migrate", "--dry-run")
	if code != 0 || !strings.Contains(out, "CREATE TABLE run_versions") || !strings.Contains(out, "dry run: nothing changed") {
		t.Fatalf("state migrate --dry-run: exit %d\n%s", code, out)
	}
	if _, code := run(t, dir, env, "runs", "list"); code != 1 {
		t.Fatal("the dry run changed the schema")
	}
	out, code = run(t, dir, env, "state", "migrate")
	if code != 0 || !strings.Contains(out, fmt.Sprintf("from schema version %d to %d", old, state.SchemaVersion())) {
		t.Fatalf("state migrate: exit %d\n%s", code, out)
	}
	if out, code := run(t, dir, env, "state", "migrate"); code != 0 || !strings.Contains(out, "nothing to migrate") {
		t.Fatalf("state migrate again: exit %d\n%s", code, out)
	}
	list, code := run(t, dir, env, "runs", "list")
	if code != 0 || !strings.Contains(list, "ok") {
		t.Fatalf("runs list after the migration: exit %d\n%s", code, list)
	}
	downgrade()
	if out, code := run(t, dir, env, "apply", "--auto-approve", "--migrate", "cached.flow.hcl"); code != 0 {
		t.Fatalf("apply --migrate: exit %d\n%s", code, out)
	}
}

// TestRunsPrune: runs prune keeps the newest runs it is told to, deletes
// the others with what is theirs, says what it freed, and refuses to
// guess what to delete.
func TestRunsPrune(t *testing.T) {
	dir := t.TempDir()
	writeFlow(t, dir, "cached.flow.hcl", cachedFlow)
	for range 4 {
		if out, code := run(t, dir, nil, "apply", "--auto-approve", "--no-cache", "cached.flow.hcl"); code != 0 {
			t.Fatalf("apply: exit %d\n%s", code, out)
		}
	}
	if out, code := run(t, dir, nil, "runs", "prune"); code != 2 || !strings.Contains(out, "--older-than") {
		t.Fatalf("runs prune without a choice: exit %d, want 2\n%s", code, out)
	}
	out, code := run(t, dir, nil, "runs", "prune", "--keep", "1", "--dry-run")
	if code != 0 || !strings.Contains(out, "Would prune 3 runs (6 step results") || !strings.Contains(out, "Nothing was deleted") {
		t.Fatalf("runs prune --dry-run: exit %d\n%s", code, out)
	}
	out, code = run(t, dir, nil, "runs", "prune", "--keep", "1", "--flow", "cached", "--json")
	var res map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || res["runs"] != float64(3) || res["step_results"] != float64(6) {
		t.Fatalf("runs prune --keep 1 --json: exit %d\n%s", code, out)
	}
	list, _ := run(t, dir, nil, "runs", "list", "--json")
	if n := strings.Count(list, `"status"`); n != 1 {
		t.Fatalf("%d runs left, want 1\n%s", n, list)
	}
	if out, code := run(t, dir, nil, "runs", "prune", "--older-than", "30d"); code != 0 || !strings.Contains(out, "Pruned 0 runs") {
		t.Fatalf("runs prune --older-than 30d: exit %d\n%s", code, out)
	}
	if out, code := run(t, dir, nil, "runs", "prune", "--older-than", "soon"); code != 2 {
		t.Fatalf("runs prune --older-than soon: exit %d, want 2\n%s", code, out)
	}
}
