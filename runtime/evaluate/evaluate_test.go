package evaluate_test

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/llm"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime/evaluate"
	"github.com/flowctl/flowctl/runtime/evaluate/evaltest"
	"github.com/flowctl/flowctl/runtime/evaluate/result"
	"github.com/flowctl/flowctl/runtime/state"
)

// sink keeps the cases it is given.
type sink struct {
	mu    sync.Mutex
	cases []result.Case
	sum   *result.Summary
}

func (s *sink) Case(c result.Case) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cases = append(s.cases, c)
	return nil
}

func (s *sink) Summary(sum result.Summary) error { s.sum = &sum; return nil }

// copyDir copies the fixture into a directory of the test's own, so that
// it may be changed.
func copyDir(t *testing.T, from string) string {
	t.Helper()
	to := t.TempDir()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return to
}

func load(t *testing.T, dir string) *compiler.Eval {
	t.Helper()
	evals, diags := evaluate.Load(lang.NewParser(), []string{filepath.Join(dir, "triage.eval.hcl")}, evaluate.LoadOptions{})
	if diags.HasErrors() || len(evals) != 1 {
		t.Fatalf("load: %v", diags)
	}
	return evals[0]
}

type fixture struct {
	dir string
	srv *evaltest.Server
	st  *state.Store
	ex  *blocks.Executors
}

func newFixture(t *testing.T) *fixture {
	srv := evaltest.New()
	t.Cleanup(srv.Close)
	st, err := state.Open(filepath.Join(t.TempDir(), "state"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ex := &blocks.Executors{Builtins: blocks.BuiltinExecutors(), Runtimes: map[string]blocks.Executor{
		lang.RuntimeLLM: llm.NewExecutor(llm.Config{BaseURL: srv.BaseURL(), APIKey: "sk-test", EmbeddingsModel: "letters"}),
	}}
	return &fixture{dir: copyDir(t, "testdata/triage"), srv: srv, st: st, ex: ex}
}

func (f *fixture) run(t *testing.T, o evaluate.Options) (*sink, result.Summary) {
	t.Helper()
	ev := load(t, f.dir)
	s := &sink{}
	o.Store, o.Executors, o.Sink = f.st, f.ex, s
	sum, err := evaluate.Run(context.Background(), ev, o)
	if err != nil {
		t.Fatal(err)
	}
	return s, sum
}

func cosine(a, b string) float64 {
	x, y := evaltest.Letters(a), evaltest.Letters(b)
	var dot, nx, ny float64
	for i := range x {
		dot += float64(x[i] * y[i])
		nx += float64(x[i] * x[i])
		ny += float64(y[i] * y[i])
	}
	return dot / math.Sqrt(nx*ny)
}

// TestScoresExact: every kind of score computed on known answers, per
// case and per variant.
func TestScoresExact(t *testing.T) {
	f := newFixture(t)
	s, sum := f.run(t, evaluate.Options{Parallelism: 4})
	if len(s.cases) != 8 || s.sum == nil {
		t.Fatalf("%d cases, summary %v", len(s.cases), s.sum)
	}
	for _, c := range s.cases {
		if c.Error != "" || c.RunID == "" {
			t.Fatalf("case %s/%d: error %q, run %q", c.Variant, c.Row, c.Error, c.RunID)
		}
		for _, sc := range c.Scores {
			if sc.Error != "" {
				t.Errorf("case %s/%d score %s: %s", c.Variant, c.Row, sc.Name, sc.Error)
			}
			if sc.Name == "polite" && sc.Reason != "graded by the test server" {
				t.Errorf("judge reason %q", sc.Reason)
			}
		}
	}
	closeBase := (3 + max(cosine("billing", "bug"), 0)) / 4
	closeWeak := (cosine("other", "billing") + 2*cosine("other", "bug") + 1) / 4
	want := map[string]map[string]float64{
		"baseline": {"category": 0.75, "thanks": 1, "known": 0.75, "shape": 0.75, "length": 0.75, "close": closeBase, "polite": 1, "polite_pf": 0},
		"weak":     {"category": 0.25, "thanks": 1, "known": 0, "shape": 0, "length": 0.75, "close": closeWeak, "polite": 1, "polite_pf": 0},
	}
	wantPass := map[string]map[string]float64{
		"baseline": {"close": 0.75},
		"weak":     {"close": 0.25},
	}
	if len(sum.Variants) != 2 {
		t.Fatalf("variants: %+v", sum.Variants)
	}
	for _, v := range sum.Variants {
		if v.Cases != 4 || v.Errors != 0 {
			t.Errorf("%s: %d cases, %d errors", v.Name, v.Cases, v.Errors)
		}
		for name, mean := range want[v.Name] {
			st := v.Scores[name]
			if math.Abs(st.Mean-mean) > 1e-9 || st.N != 4 {
				t.Errorf("%s %s: mean %v (n %d), want %v", v.Name, name, st.Mean, st.N, mean)
			}
			if p, ok := wantPass[v.Name][name]; ok && math.Abs(st.PassRate-p) > 1e-9 {
				t.Errorf("%s %s: pass rate %v, want %v", v.Name, name, st.PassRate, p)
			}
		}
		if v.Tokens == 0 {
			t.Errorf("%s: no tokens counted", v.Name)
		}
	}
	// The gate: category's mean is 0.75 for the baseline and 0.25 for
	// weak, whose mean is under the minimum 0.7.
	if len(sum.Gates) != 1 || sum.Gates[0].Held || sum.Held() {
		t.Errorf("gates: %+v", sum.Gates)
	}
}

// TestRerunCallsNoModel: a second run of the same eval is answered by the
// result cache, flow steps and scorers alike: no request reaches the
// model server, and every case says it was cached.
func TestRerunCallsNoModel(t *testing.T) {
	f := newFixture(t)
	f.run(t, evaluate.Options{})
	first := f.srv.Requests()
	if first == 0 {
		t.Fatal("the first run made no request")
	}
	s, sum := f.run(t, evaluate.Options{})
	if n := f.srv.Requests() - first; n != 0 {
		t.Errorf("the rerun made %d requests, want 0", n)
	}
	for _, c := range s.cases {
		if !c.Cached {
			t.Errorf("case %s/%d not cached", c.Variant, c.Row)
		}
	}
	if sum.Variants[0].Cached != 4 {
		t.Errorf("cached: %+v", sum.Variants[0])
	}
}

// TestChangedVariantRerunsOnlyItsCases: changing one variant's override
// runs that variant's cases again (one model call each) and only them.
func TestChangedVariantRerunsOnlyItsCases(t *testing.T) {
	f := newFixture(t)
	f.run(t, evaluate.Options{})
	file := filepath.Join(f.dir, "triage.eval.hcl")
	b, _ := os.ReadFile(file)
	changed := []byte(replace(string(b), `model = "weak"`, "model  = \"weak\"\n      prompt = \"Label: ${input.ticket}\""))
	if err := os.WriteFile(file, changed, 0o644); err != nil {
		t.Fatal(err)
	}
	chats := f.srv.Chats()
	s, _ := f.run(t, evaluate.Options{})
	if n := f.srv.Chats() - chats; n != 4 {
		t.Errorf("the changed variant made %d chat requests, want 4 (one a case)", n)
	}
	for _, c := range s.cases {
		if c.Cached != (c.Variant == "baseline") {
			t.Errorf("case %s/%d: cached %v", c.Variant, c.Row, c.Cached)
		}
	}
}

// TestSelection: --variant, --only, --limit and --repeat choose the cases.
func TestSelection(t *testing.T) {
	f := newFixture(t)
	s, _ := f.run(t, evaluate.Options{Variants: []string{"weak"}, Limit: 3, Repeat: 2})
	if len(s.cases) != 6 {
		t.Fatalf("%d cases, want 3 rows × 2 repetitions of weak", len(s.cases))
	}
	for _, c := range s.cases {
		if c.Variant != "weak" || c.Row > 2 {
			t.Errorf("case %s/%d", c.Variant, c.Row)
		}
	}
	s, _ = f.run(t, evaluate.Options{Only: mustRegexp(t, `^baseline/t[24]$`)})
	if len(s.cases) != 2 {
		t.Fatalf("%d cases, want baseline's t2 and t4", len(s.cases))
	}
	ev := load(t, f.dir)
	if _, err := evaluate.Run(context.Background(), ev, evaluate.Options{Variants: []string{"nope"}}); err == nil {
		t.Error("an unknown variant ran")
	}
}

func replace(s, old, new string) string { return strings.Replace(s, old, new, 1) }

func mustRegexp(t *testing.T, s string) *regexp.Regexp {
	t.Helper()
	return regexp.MustCompile(s)
}

// TestSensitiveValuesStayHidden: a score of a sensitive value quotes it in
// no reason, a judge is not sent it, and the case records "(sensitive)".
func TestSensitiveValuesStayHidden(t *testing.T) {
	f := newFixture(t)
	files := map[string]string{
		"secret.flow.hcl": `flow "secret" {}
input "code" {
  type      = string
  sensitive = true
}
step "echo" {
  use   = "value"
  value = "code ${input.code}"
}
output "echo" {
  value     = step.echo.value
  sensitive = true
}
`,
		"codes.jsonl": `{"code": "hunter2"}` + "\n",
		"triage.eval.hcl": `eval "triage" {
  flow    = "secret"
  dataset = "codes.jsonl"
  inputs  = { code = row.code }
  score "same" {
    kind     = "exact"
    value    = output.echo
    expected = "code swordfish"
  }
  score "judged" {
    kind   = "judge"
    model  = "judge"
    rubric = "Is it a good code?"
    value  = output.echo
  }
}
`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(f.dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, _ := f.run(t, evaluate.Options{})
	if len(s.cases) != 1 || f.srv.Requests() != 0 {
		t.Fatalf("%d cases, %d requests", len(s.cases), f.srv.Requests())
	}
	c := s.cases[0]
	text, _ := json.Marshal(c)
	if strings.Contains(string(text), "hunter2") {
		t.Errorf("the case shows the secret: %s", text)
	}
	if c.Scores[0].Pass || c.Scores[0].Reason != "(sensitive)" || c.Scores[1].Error != "a sensitive value is not sent to a model to be scored" {
		t.Errorf("scores %+v", c.Scores)
	}
}

// TestRepeatsHaveTheirOwnResults: under --repeat each repetition runs the
// flow (and calls the model) rather than reading the previous one's
// result from the cache; a rerun reads them all.
func TestRepeatsHaveTheirOwnResults(t *testing.T) {
	f := newFixture(t)
	o := evaluate.Options{Variants: []string{"baseline"}, Limit: 1, Repeat: 3, Parallelism: 1}
	s, sum := f.run(t, o)
	if len(s.cases) != 3 {
		t.Fatalf("%d cases", len(s.cases))
	}
	for _, c := range s.cases {
		if c.Cached {
			t.Errorf("repetition %d came from the cache", c.Repeat)
		}
	}
	if st := sum.Variants[0].Scores["category"]; st.PassK != 1 || st.N != 3 {
		t.Errorf("category %+v", st)
	}
	before := f.srv.Requests()
	s, _ = f.run(t, o)
	for _, c := range s.cases {
		if !c.Cached {
			t.Errorf("rerun: repetition %d not cached", c.Repeat)
		}
	}
	if f.srv.Requests() != before {
		t.Errorf("the rerun made %d requests", f.srv.Requests()-before)
	}
}

// TestProviders: a variant's override and a judge may name a provider of
// the flow; the environment's server is never asked.
func TestProviders(t *testing.T) {
	f := newFixture(t)
	f.ex.Runtimes[lang.RuntimeLLM] = llm.NewExecutor(llm.Config{}) // no server of the environment
	files := map[string]string{
		"triage.flow.hcl": `flow "triage" {}
input "ticket" {
  type = string
}
provider "local" {
  base_url = "` + f.srv.BaseURL() + `"
}
step "classify" {
  use    = "llm"
  prompt = "Ticket: ${input.ticket}"
  output "category" {
    type = string
  }
}
output "category" {
  value = step.classify.category
}
`,
		"triage.eval.hcl": `eval "triage" {
  flow    = "triage"
  dataset = "data/tickets.jsonl"
  inputs  = { ticket = row.text }
  variant "env" {}
  variant "local" {
    override "step.classify" {
      provider = provider.local
      model    = "good"
    }
  }
  score "category" {
    kind     = "exact"
    value    = output.category
    expected = row.category
  }
  score "judged" {
    kind     = "judge"
    model    = "judge"
    provider = provider.local
    rubric   = "Is it right?"
    value    = "Thank you"
  }
}
`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(f.dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, sum := f.run(t, evaluate.Options{})
	for _, v := range sum.Variants {
		want := map[string]float64{"env": 0, "local": 0.75}[v.Name]
		if st := v.Scores["category"]; st.Mean != want || (v.Name == "env") != (v.Errors == 4) {
			t.Errorf("%s: category %+v, %d errors", v.Name, st, v.Errors)
		}
		if st := v.Scores["judged"]; st.Mean != 1 {
			t.Errorf("%s: judged %+v", v.Name, st)
		}
	}
}

// TestDocsListTheScoreKinds: docs/evals.md's table of scores has a row of
// each kind, with the arguments it takes.
func TestDocsListTheScoreKinds(t *testing.T) {
	b, err := os.ReadFile("../../docs/evals.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if kind, ok := strings.CutPrefix(line, "| `"); ok {
			if i := strings.Index(kind, "` |"); i > 0 {
				rows[kind[:i]] = line
			}
		}
	}
	for _, kind := range lang.ScoreKindNames {
		row, ok := rows[kind]
		if !ok {
			t.Errorf("docs/evals.md has no row of the score kind %s", kind)
			continue
		}
		spec := lang.ScoreKinds[kind]
		for _, arg := range append(append([]string{}, spec.Required...), spec.Optional...) {
			if !strings.Contains(row, "`"+arg+"`") {
				t.Errorf("docs/evals.md's row of %s does not name its argument %s", kind, arg)
			}
		}
	}
	if len(lang.ScoreKindNames) != len(lang.ScoreKinds) {
		t.Errorf("ScoreKindNames has %d kinds, ScoreKinds %d", len(lang.ScoreKindNames), len(lang.ScoreKinds))
	}
}

// TestVariantsInTheirOrder: the summary gives the variants in the eval's
// order, whichever finished its first case first; and an --only that
// matches no case is an error, not gates that hold having judged nothing.
func TestVariantsInTheirOrder(t *testing.T) {
	f := newFixture(t)
	// Row t1 runs only weak, t2 only baseline: weak's case finishes
	// first.
	_, sum := f.run(t, evaluate.Options{Only: mustRegexp(t, `^(weak/t1|baseline/t2)$`), Parallelism: 1})
	var names []string
	for _, v := range sum.Variants {
		names = append(names, v.Name)
	}
	if strings.Join(names, ",") != "baseline,weak" {
		t.Errorf("variants %v, want the eval's order", names)
	}
	ev := load(t, f.dir)
	held, err := evaluate.RunAll(context.Background(), []*compiler.Eval{ev}, evaluate.Options{Store: f.st, Executors: f.ex, Only: mustRegexp(t, `^nope/`)})
	if held || err == nil || !strings.Contains(err.Error(), `no case ran: --only "^nope/" matches no case's name (VARIANT/ROW, such as baseline/1)`) {
		t.Errorf("an --only of no case: held %v, %v", held, err)
	}
}
