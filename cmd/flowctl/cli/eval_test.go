package cli

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/runtime/evaluate/evaltest"
	"github.com/flowctl/flowctl/runtime/evaluate/result"
)

// evalLines reads eval --json: the cases, then the summary.
func evalLines(t *testing.T, out string) (cases []result.Case, sums []result.Summary) {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var typ struct{ Type string }
		if err := json.Unmarshal(sc.Bytes(), &typ); err != nil {
			t.Fatalf("not a JSON line: %s", sc.Text())
		}
		switch typ.Type {
		case "case":
			var c result.Case
			json.Unmarshal(sc.Bytes(), &c)
			cases = append(cases, c)
		case "summary":
			var s result.Summary
			json.Unmarshal(sc.Bytes(), &s)
			sums = append(sums, s)
		default:
			t.Fatalf("line of type %q: %s", typ.Type, sc.Text())
		}
	}
	return cases, sums
}

// TestEvalExample runs examples/eval against a local model server: its
// gate holds (exit 0), a rerun makes no request, and a variant planted
// with a regression fails the gate (exit 1).
func TestEvalExample(t *testing.T) {
	srv := evaltest.New()
	t.Cleanup(srv.Close)
	t.Setenv("OPENAI_BASE_URL", srv.BaseURL())
	t.Setenv("OPENAI_API_KEY", "")
	dir := filepath.Join(t.TempDir(), "eval")
	if err := os.CopyFS(dir, os.DirFS("../../../examples/eval")); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(dir, ".flowctl"))
	state := filepath.Join(t.TempDir(), "state")

	code, out, errOut := runCLI(t, "eval", "--json", "--state", state, dir)
	if code != 0 {
		t.Fatalf("eval exited %d:\n%s%s", code, out, errOut)
	}
	cases, sums := evalLines(t, out)
	if len(cases) != 12 || len(sums) != 1 || len(sums[0].Variants) != 2 {
		t.Fatalf("%d cases, summaries %+v", len(cases), sums)
	}
	for _, v := range sums[0].Variants {
		if st := v.Scores["category"]; st.Mean != 1 || st.N != 6 {
			t.Errorf("%s: category %+v", v.Name, st)
		}
		if st := v.Scores["reply_quality"]; st.Mean != 1 {
			t.Errorf("%s: reply_quality %+v", v.Name, st)
		}
	}
	if !sums[0].Gates[0].Held {
		t.Errorf("gate: %+v", sums[0].Gates)
	}

	before := srv.Requests()
	code, out, errOut = runCLI(t, "eval", "--state", state, dir)
	if code != 0 || srv.Requests() != before {
		t.Fatalf("rerun exited %d with %d requests:\n%s%s", code, srv.Requests()-before, out, errOut)
	}
	for _, want := range []string{`Eval "triage"`, "baseline: 6 cases (6 cached)", "category", "Gates:", "held: category, min 0.85 (every variant)"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}

	// A planted regression: a variant whose model labels every ticket
	// "other" (2 of 6 right).
	file := filepath.Join(dir, "triage.eval.hcl")
	b, _ := os.ReadFile(file)
	weak := strings.Replace(string(b), `  score "category" {`, "  variant \"weak\" {\n    override \"step.classify\" {\n      model = \"weak\"\n    }\n  }\n\n  score \"category\" {", 1)
	if err := os.WriteFile(file, []byte(weak), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCLI(t, "eval", "--state", state, dir)
	if code != 1 || !strings.Contains(out, "FAILED: category, min 0.85 (every variant): weak: mean 0.333 is below the minimum 0.85") {
		t.Fatalf("eval with a regression exited %d:\n%s%s", code, out, errOut)
	}
	// Only the new variant ran: 6 classifications (its replies, the
	// same as the others', were judged already).
	if n := srv.Chats(); n == 0 {
		t.Fatal("no request")
	}
	code, _, _ = runCLI(t, "eval", "--state", state, "--variant", "baseline", dir)
	if code != 0 {
		t.Errorf("the baseline alone exited %d", code)
	}
}

// TestEvalUsageAndDiagnostics: a wrong use exits 2; an eval that refers
// to what the flow does not have is a diagnostic at its range, in eval
// and in validate, exit 1.
func TestEvalUsageAndDiagnostics(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "eval")
	if err := os.CopyFS(dir, os.DirFS("../../../examples/eval")); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"eval", "--repeat", "0", dir}, {"eval", "--only", "(", dir}, {"eval", dir, dir}, {"eval", "--variant", "nope", dir}} {
		if code, _, _ := runCLI(t, args...); code != 2 {
			t.Errorf("%v exited %d, want 2", args, code)
		}
	}
	file := filepath.Join(dir, "triage.eval.hcl")
	b, _ := os.ReadFile(file)
	if err := os.WriteFile(file, []byte(strings.Replace(string(b), "output.category", "output.categry", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"eval", "validate"} {
		code, out, errOut := runCLI(t, cmd, dir)
		text := out + errOut
		if code != 1 || !strings.Contains(text, "Error: Unknown output") || !strings.Contains(text, `Flow "triage" has no output "categry"; it has category, reply.`) ||
			!strings.Contains(text, "triage.eval.hcl line 17") {
			t.Errorf("%s exited %d:\n%s%s", cmd, code, out, errOut)
		}
	}
}

// TestEvalShowsWhyRunsFailed: without a model server every run fails; the
// report says so, with the first failure's error, and the gate fails.
func TestEvalShowsWhyRunsFailed(t *testing.T) {
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("OPENAI_API_KEY", "")
	dir := filepath.Join(t.TempDir(), "eval")
	if err := os.CopyFS(dir, os.DirFS("../../../examples/eval")); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "eval", "--state", filepath.Join(t.TempDir(), "state"), "--variant", "baseline", "--limit", "2", dir)
	if code != 1 || !strings.Contains(out, "baseline: 2 cases, 2 failed runs") || !strings.Contains(out, "  first failed run, row ") || !strings.Contains(out, "no model server is configured") {
		t.Errorf("eval exited %d:\n%s%s", code, out, errOut)
	}
}
