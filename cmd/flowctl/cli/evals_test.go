package cli

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/flowctl/flowctl/runtime/evaluate/evaltest"
	"github.com/flowctl/flowctl/runtime/evaluate/result"
	"github.com/flowctl/flowctl/runtime/state"
)

// keepEval keeps in st the results of an evaluation of eval "triage" over
// 6 rows × 2 variants, in which the rows of bad score 0 (their reply
// says so); it returns their ID.
func keepEval(t *testing.T, st *state.Store, start time.Time, bad map[int]bool) string {
	t.Helper()
	// IDs of their own, a minute apart: two made at once may differ in
	// their last characters only, and the test looks them up by prefix.
	w, err := st.NewEvalResult(&state.EvalResult{ID: fmt.Sprintf("e%d", start.UnixNano()), Eval: "triage", File: "triage.eval.hcl", Flow: "triage", StartedAt: start})
	if err != nil {
		t.Fatal(err)
	}
	agg := result.NewAggregator()
	for _, variant := range []string{"baseline", "short"} {
		for row := range 6 {
			c := result.Case{Eval: "triage", Variant: variant, Row: row, Inputs: json.RawMessage(fmt.Sprintf(`{"ticket":"ticket %d"}`, row)),
				Outputs: json.RawMessage(`{"category":"bug","reply":"<b>fixed</b>"}`), RunID: fmt.Sprintf("run-%d", row), Tokens: 10, Duration: time.Millisecond,
				Scores: []result.Score{{Name: "category", Value: 1, Pass: true}}}
			if bad[row] && variant == "short" {
				c.Outputs = json.RawMessage(`{"category":"feature","reply":"<script>alert(1)</script>"}`)
				c.Scores = []result.Score{{Name: "category", Value: 0, Reason: "expected bug"}}
			}
			agg.Add(c)
			if err := w.Case(c); err != nil {
				t.Fatal(err)
			}
		}
	}
	min := 0.9
	sum := result.Summary{Eval: "triage", File: "triage.eval.hcl", Flow: "triage", StartedAt: start, Variants: agg.Stats(),
		Gates: []result.Gate{{Score: "category", Min: &min, Held: len(bad) == 0}}}
	if err := w.Summary(sum); err != nil {
		t.Fatal(err)
	}
	return w.ID()
}

// TestEvalResultsCommands: eval list, show and compare read the results
// kept in the state; show --json is a results file; --junit writes one
// test case a row × variant and --report a Markdown or HTML report of
// the regressed cases side by side, escaped (each parsed here); unknown
// IDs and a wrong report name are clear errors.
func TestEvalResultsCommands(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	st, err := state.Open(filepath.Join(dir, ".flowctl"))
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now().Add(-time.Hour)
	a := keepEval(t, st, t0, nil)
	b := keepEval(t, st, t0.Add(time.Minute), map[int]bool{2: true, 4: true})
	st.Close()

	code, out, errOut := runCLI(t, "eval", "list")
	if code != 0 || !strings.Contains(out, a) || !strings.Contains(out, b) || strings.Index(out, b) > strings.Index(out, a) || !strings.Contains(out, "failed") {
		t.Fatalf("eval list: exit %d\n%s%s", code, out, errOut)
	}
	junit, md, html := filepath.Join(dir, "eval.xml"), filepath.Join(dir, "r.md"), filepath.Join(dir, "r.html")
	code, out, errOut = runCLI(t, "eval", "show", b, "--junit", junit)
	if code != 0 || !strings.Contains(out, "Variant short: 6 cases") || !strings.Contains(out, "Gate on category: FAILED") {
		t.Fatalf("eval show: exit %d\n%s%s", code, out, errOut)
	}
	var doc struct {
		Tests  int `xml:"tests,attr"`
		Fails  int `xml:"failures,attr"`
		Suites []struct {
			Name  string `xml:"name,attr"`
			Tests int    `xml:"tests,attr"`
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	data, err := os.ReadFile(junit)
	if err != nil || xml.Unmarshal(data, &doc) != nil {
		t.Fatalf("JUnit: %v\n%s", err, data)
	}
	if doc.Tests != 12 || doc.Fails != 2 || len(doc.Suites) != 2 || doc.Suites[1].Name != "triage/short" || doc.Suites[1].Tests != 6 ||
		doc.Suites[1].Cases[2].Name != "row 3" || doc.Suites[1].Cases[2].Failure == nil || !strings.Contains(doc.Suites[1].Cases[2].Failure.Message, "expected bug") ||
		doc.Suites[0].Cases[2].Failure != nil {
		t.Errorf("JUnit: %+v", doc)
	}

	// show --json is a results file: compare reads it as the baseline.
	code, out, _ = runCLI(t, "eval", "show", a, "--json")
	if code != 0 || strings.Count(out, "\n") != 13 || !strings.Contains(out, `{"case":{`) {
		t.Fatalf("show --json: exit %d\n%s", code, out)
	}
	file := filepath.Join(dir, "a.jsonl")
	writeFile(t, file, out)
	for _, base := range []string{a, file} {
		code, out, errOut = runCLI(t, "eval", "compare", base, b[:len(b)-2], "--report", html)
		if code != 0 || !strings.Contains(out, "2 cases regressed, 0 improved") || !strings.Contains(out, "short row 3, category regressed: 1.000 → 0.000") {
			t.Fatalf("compare %s: exit %d\n%s%s", base, code, out, errOut)
		}
	}
	f, err := os.Open(html)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	page, err := goquery.NewDocumentFromReader(f)
	if err != nil {
		t.Fatal(err)
	}
	if n := page.Find("#variants tbody tr").Length(); n != 2 {
		t.Errorf("%d variants in the HTML report", n)
	}
	if page.Find("script").Length() != 0 {
		t.Error("an output's <script> is a script of the report")
	}
	regs := page.Find("#regressions tbody tr")
	if regs.Length() != 2 || !strings.Contains(regs.First().Find("td").Eq(6).Text(), `"reply":"<b>fixed</b>"`) ||
		!strings.Contains(regs.First().Find("td").Eq(7).Text(), "<script>alert(1)</script>") {
		t.Errorf("regressed cases: %d\n%s", regs.Length(), regs.Text())
	}
	if code, out, _ = runCLI(t, "eval", "compare", a, b, "--json", "--report", md); code != 0 {
		t.Fatalf("compare --json: exit %d\n%s", code, out)
	}
	var cmp result.Comparison
	if err := json.Unmarshal([]byte(out), &cmp); err != nil || cmp.Regressed != 2 || len(cmp.Scores) != 2 || cmp.Scores[1].Diff >= 0 {
		t.Errorf("compare --json: %v\n%s", err, out)
	}
	report, _ := os.ReadFile(md)
	if !strings.Contains(string(report), "| short | 6 | 0 | 0.667 [") || !strings.Contains(string(report), "## Regressed cases") ||
		!strings.Contains(string(report), "| `{\"category\":\"feature\",\"reply\":\"<script>alert(1)</script>\"}` |") {
		t.Errorf("Markdown report:\n%s", report)
	}

	if code, _, errOut := runCLI(t, "eval", "show", "nosuchid"); code != 1 || !strings.Contains(errOut, "Unknown results") {
		t.Errorf("unknown ID: exit %d\n%s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "eval", "show", a, "--report", "r.pdf"); code != 2 || !strings.Contains(errOut, "FILE.md") {
		t.Errorf("a PDF report: exit %d\n%s", code, errOut)
	}
}

// TestEvalBaseline runs examples/eval against a local model server, kept
// in the state; then, with a max_regression gate and the short_prompt
// variant planted with a regression (a model that labels every ticket
// "other"), eval --baseline latest compares with the first results:
// exit 1, the gate's reason, the regressed cases, JUnit of a test case a
// row × variant and an HTML report of the regressed cases; eval list
// lists both results, and the first run of an eval compares with nothing.
func TestEvalBaseline(t *testing.T) {
	srv := evaltest.New()
	t.Cleanup(srv.Close)
	t.Setenv("OPENAI_BASE_URL", srv.BaseURL())
	t.Setenv("OPENAI_API_KEY", "")
	dir := filepath.Join(t.TempDir(), "eval")
	if err := os.CopyFS(dir, os.DirFS("../../../examples/eval")); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(dir, ".flowctl"))
	stateDir := filepath.Join(t.TempDir(), "state")
	file := filepath.Join(dir, "triage.eval.hcl")
	b, _ := os.ReadFile(file)
	src := strings.Replace(string(b), "    min   = 0.85\n", "    min            = 0.3\n    max_regression = 0.1\n", 1)
	writeFile(t, file, src)

	code, out, errOut := runCLI(t, "eval", "--state", stateDir, "--baseline", "latest", dir)
	if code != 0 || !strings.Contains(out, "no baseline") && !strings.Contains(out, "held: category") {
		t.Fatalf("the first eval, --baseline latest: exit %d\n%s%s", code, out, errOut)
	}
	writeFile(t, file, strings.Replace(src, `prompt = "Classify: ${input.ticket}"`, `model  = "weak"`, 1))
	junit, report := filepath.Join(t.TempDir(), "eval.xml"), filepath.Join(t.TempDir(), "eval.html")
	code, out, errOut = runCLI(t, "eval", "--state", stateDir, "--baseline", "latest", "--junit", junit, "--report", report, dir)
	if code != 1 || !strings.Contains(out, "Against the baseline") || !strings.Contains(out, "FAILED: category") ||
		!strings.Contains(out, "category of variant short_prompt dropped by 0.667") || !strings.Contains(out, "short_prompt row 1, category regressed") {
		t.Fatalf("eval with a planted regression: exit %d\n%s%s", code, out, errOut)
	}
	data, err := os.ReadFile(junit)
	var doc struct {
		Tests  int `xml:"tests,attr"`
		Fails  int `xml:"failures,attr"`
		Suites []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Name string `xml:"name,attr"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err != nil || xml.Unmarshal(data, &doc) != nil || doc.Tests != 12 || doc.Fails != 4 || len(doc.Suites) != 2 || doc.Suites[1].Name != "triage/short_prompt" || len(doc.Suites[1].Cases) != 6 {
		t.Errorf("JUnit %+v, %v\n%s", doc, err, data)
	}
	f, err := os.Open(report)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	page, err := goquery.NewDocumentFromReader(f)
	if err != nil {
		t.Fatal(err)
	}
	if n := page.Find("#regressions tbody tr").Length(); n != 4 || !strings.Contains(page.Find("#regressions").Text(), `"category":"other"`) {
		t.Errorf("%d regressed cases in the report:\n%s", n, page.Find("#regressions").Text())
	}
	if page.Find("#gates li.failed").Length() != 1 {
		t.Errorf("the gates: %s", page.Find("#gates").Text())
	}
	code, out, _ = runCLI(t, "eval", "list", "--state", stateDir, "--json")
	var list struct {
		Results []struct {
			ID      string          `json:"id"`
			Summary *result.Summary `json:"summary"`
		} `json:"results"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list.Results) != 2 || list.Results[0].Summary.Baseline != list.Results[1].ID || list.Results[0].Summary.Held() {
		t.Errorf("eval list: exit %d\n%s", code, out)
	}
	// Several evals take no report.
	writeFile(t, filepath.Join(dir, "again.eval.hcl"), strings.Replace(src, `eval "triage"`, `eval "again"`, 1))
	// Several evals take no report: a wrong use, before anything runs.
	if code, _, errOut := runCLI(t, "eval", "--state", stateDir, "--junit", junit, dir); code != 2 || !strings.Contains(errOut, "name one eval file") {
		t.Errorf("--junit of two evals: exit %d\n%s", code, errOut)
	}
}
