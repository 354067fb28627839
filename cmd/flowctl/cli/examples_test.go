package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
)

// offline lists the examples that run with no network and no model: the
// test applies them twice and checks that the second run is all cached.
var offline = map[string][]string{"hello": nil, "digest": nil, "notes": nil, "stats": nil, "stats-numpy": nil}

// appliedBy names the test that applies an example needing a model,
// against a local fake of its server.
var appliedBy = map[string]string{"chat": "TestChatExample", "summarize": "TestSummarizeExample", "rag": "TestRagExample", "eval": "TestEvalExample"}

// needsPython are the examples with python blocks, which run where there
// is a python3 (3.11+): always in CI.
var needsPython = map[string]bool{"stats": true, "stats-numpy": true}

// lockedFirst are the examples with dependencies, which the test locks
// offline before running them: stats-numpy's numpy from Debian's
// python3-numpy made into a wheel (debianNumpyOffline).
var lockedFirst = map[string]func(t *testing.T){"stats-numpy": debianNumpyOffline}

// planArgs are what an example needs to plan: a value for each secret, as
// a missing secret is an error at plan time.
var planArgs = map[string][]string{"research": {"--secret", "search_token=any"}}

// TestExamples validates, tests and plans every flow under examples/, and applies
// the ones that run offline, each in a copy of its directory so that the
// repository gets no state.
func TestExamples(t *testing.T) {
	flows, err := filepath.Glob("../../../examples/*/*.flow.hcl")
	if err != nil || len(flows) < 4 {
		t.Fatalf("found %d example flows (%v); want at least 4", len(flows), err)
	}
	for _, flow := range flows {
		name := filepath.Base(filepath.Dir(flow))
		t.Run(name, func(t *testing.T) {
			if needsPython[name] {
				needPython(t)
			}
			dir := filepath.Join(t.TempDir(), name)
			if err := os.CopyFS(dir, os.DirFS(filepath.Dir(flow))); err != nil {
				t.Fatal(err)
			}
			// A state left by running the example by hand is not copied.
			if err := os.RemoveAll(filepath.Join(dir, ".flowctl")); err != nil {
				t.Fatal(err)
			}
			run := func(args ...string) []byte {
				t.Helper()
				var out, errOut bytes.Buffer
				s := streams{in: &bytes.Buffer{}, out: &out, err: &errOut}
				if code := Run(args, s); code != 0 {
					t.Fatalf("flowctl %v exited %d:\n%s%s", args, code, out.String(), errOut.String())
				}
				return out.Bytes()
			}
			if lock := lockedFirst[name]; lock != nil {
				lock(t)
				run("lock", dir)
				run("lock", "--check", dir)
			}
			run("validate", dir)
			run("test", dir) // the blocks' examples, in the sandbox
			var plan views.JSONPlan
			if err := json.Unmarshal(run(append([]string{"plan", "--json", dir}, planArgs[name]...)...), &plan); err != nil {
				t.Fatalf("plan --json: %v", err)
			}
			if len(plan.Steps) == 0 || len(plan.CriticalPath) == 0 {
				t.Fatalf("plan has %d steps and critical path %v", len(plan.Steps), plan.CriticalPath)
			}
			builtins := blocks.NewRegistry()
			uncached := map[string]bool{} // steps of a built-in block that is not cached (value, sleep…)
			for _, s := range plan.Steps {
				if s.Action == "cached" || (s.Action != "run" && s.Reason == "") {
					t.Errorf("step %s: action %q (%s) on a fresh state", s.Name, s.Action, s.Reason)
				}
				if b := builtins.Lookup(s.Use); b != nil && !b.CacheDefault {
					uncached[s.Name] = true
				}
			}
			extra, ok := offline[name]
			if !ok {
				if by := appliedBy[name]; by != "" {
					t.Skipf("%s needs a model to apply: %s applies it against a local server", name, by)
				}
				t.Skipf("%s needs the network or a model to apply", name)
			}
			for i, want := range []string{"ok", "cached"} {
				events := parseEvents(t, run(append([]string{"apply", "--auto-approve", "--json", dir}, extra...)...))
				last := events[len(events)-1]
				if last.Type != "run_finished" || last.Status != "ok" {
					t.Fatalf("apply %d ended with %+v", i+1, last)
				}
				for _, e := range events {
					want := want
					if uncached[e.Step] {
						want = "ok"
					}
					if e.Type == "step_finished" && e.Status != want && e.Status != "skipped" {
						t.Errorf("apply %d: step %s[%v] is %s, want %s", i+1, e.Step, e.Instance, e.Status, want)
					}
				}
			}
		})
	}
}
