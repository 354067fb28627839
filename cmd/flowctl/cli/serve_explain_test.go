package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// page is a headless Chromium tab for the dashboard's tests.
type page struct {
	t   *testing.T
	ctx context.Context
}

func newPage(t *testing.T) *page {
	t.Helper()
	browser := chromium(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(browser), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.WindowSize(1400, 1000))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelCtx(); cancelAlloc() })
	return &page{t: t, ctx: ctx}
}

// until waits, far longer than it should take, for js to be true.
func (p *page) until(js string) chromedp.Action[chromedp.Void] {
	return chromedp.Poll[chromedp.Void](js, chromedp.WithPollingInterval(100*time.Millisecond), chromedp.WithPollingTimeout(2*time.Minute))
}

// text is the text of the element sel selects.
func (p *page) text(sel string) string {
	p.t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Poll[string](fmt.Sprintf(`document.querySelector(%q).textContent`, sel)))
	if err != nil {
		p.t.Fatalf("%s: %v", sel, err)
	}
	return v
}

// do runs steps; a failure ends the test with the page's text.
func (p *page) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, steps...); err != nil {
		text, _ := chromedp.Run(p.ctx, chromedp.Poll[string](`document.querySelector('main').innerText`))
		p.t.Fatalf("%s: %v\nthe page:\n%s", what, err, text)
	}
}

// TestDashboardExplain: on a failed run's page the Explain button asks
// serve (with a scripted model) why the run failed; the page shows the
// diagnosis and the diff of the checked fix, and Accept writes it. The
// model never gets the secret's value.
func TestDashboardExplain(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	p := newPage(t)
	dir, runID := explainDir(t)
	model := newThinkServer(t, map[string][]string{
		"explain": {explainReply(splitDiagnosis, "Split the text's body field.", fixedSplit)},
	})
	srv := startServe(t, dir, nil)

	p.do("explaining the failed run",
		chromedp.Navigate(srv.url+"/runs/"+runID),
		p.until(`document.querySelector('#explain-run') !== null`),
		chromedp.Click(chromedp.CSS(`#explain-run`)),
		p.until(`document.querySelector('#explain-diagnosis') !== null`),
		p.until(`document.querySelector('#explain-diff') !== null`))
	if got := p.text("#explain-diagnosis"); got != splitDiagnosis {
		t.Errorf("the diagnosis shown: %q", got)
	}
	diff := p.text("#explain-diff")
	if !strings.Contains(diff, "+      return { words: input.text.body.split") || !strings.Contains(diff, "blocks/split_words.block.hcl") {
		t.Errorf("the diff shown:\n%s", diff)
	}
	if u := p.text("#explain-usage"); !strings.Contains(u, "1 model call, 10 prompt + 5 completion tokens") {
		t.Errorf("the usage shown: %q", u)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "blocks", "split_words.block.hcl")); string(b) != brokenSplit {
		t.Fatal("explain wrote the block file")
	}
	p.do("accepting the fix",
		chromedp.Click(chromedp.CSS(`#proposal-accept`)),
		p.until(`document.querySelector('#proposal-status').textContent.includes('accepted')`))
	if b, _ := os.ReadFile(filepath.Join(dir, "blocks", "split_words.block.hcl")); string(b) != fixedSplit {
		t.Errorf("accept did not write the fix:\n%s", b)
	}
	if n := len(model.recorded("explain")); n != 1 {
		t.Errorf("%d explain requests, want 1", n)
	}
	noSecret(t, model)
}

// TestDashboardTokens: the tokens runs show reports, an llm step's
// instances' and the run's total, are in the API's run and on the run's
// page (each completion of the scripted model reports 10 + 5 tokens).
func TestDashboardTokens(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	p := newPage(t)
	dir := thinkDir(t)
	newThinkServer(t, nil)
	writeFile(t, filepath.Join(dir, "ask.flow.hcl"), `flow "ask" {}

step "topics" {
  use      = "llm"
  for_each = ["a", "b"]
  prompt   = "Name a topic starting with ${each.value}"
}

step "plain" {
  use   = "value"
  value = "no model"
}
`)
	code, out, errOut := runCLI(t, "apply", "--auto-approve", "--json", "ask.flow.hcl")
	if code != 0 {
		t.Fatalf("apply exited %d:\n%s%s", code, out, errOut)
	}
	id := regexp.MustCompile(`"run_id":"([^"]+)"`).FindStringSubmatch(out)[1]
	srv := startServe(t, dir, nil)
	type usage struct {
		Prompt     int `json:"prompt_tokens"`
		Completion int `json:"completion_tokens"`
		Total      int `json:"total_tokens"`
	}
	var run struct {
		Usage *usage `json:"usage"`
		Steps []struct {
			Step  string `json:"step"`
			Usage *usage `json:"usage"`
		} `json:"steps"`
	}
	if code := srv.do("GET", "/v1/runs/"+id, "", &run); code != 200 || run.Usage == nil || *run.Usage != (usage{20, 10, 30}) || len(run.Steps) != 3 {
		t.Fatalf("GET /v1/runs/%s: %d %+v", id, code, run)
	}
	for _, st := range run.Steps {
		if (st.Step == "topics") != (st.Usage != nil) || st.Usage != nil && *st.Usage != (usage{10, 5, 15}) {
			t.Errorf("step %s's usage: %+v", st.Step, st.Usage)
		}
	}
	p.do("the run's page",
		chromedp.Navigate(srv.url+"/runs/"+id),
		p.until(`document.querySelector('#run-tokens') !== null`),
		p.until(`document.querySelector('g.node[data-step="topics"]') !== null`),
		chromedp.Click(chromedp.CSS(`g.node[data-step="topics"]`)),
		p.until(`document.querySelector('#step-tokens') !== null`))
	if got := p.text("#run-tokens"); got != "30 (20 prompt + 10 completion)" {
		t.Errorf("the run's tokens: %q", got)
	}
	if got := p.text("#step-tokens"); got != "Tokens, all 2 instances: 30 (20 prompt + 10 completion)" {
		t.Errorf("the step's tokens: %q", got)
	}
	if got := p.text("#detail .instance[data-instance='0']") + p.text("#detail .instance[data-instance='1']"); strings.Count(got, "15 (10 prompt + 5 completion)") != 2 {
		t.Errorf("the instances' tokens:\n%s", got)
	}
}

// TestDashboardExplainWeakening: a run cancelled while it waits for its
// approval is explained on the dashboard, and the model's fix removes the
// approval. The page says so in red above the diff, and Accept, with a
// token that may run and author but not approve, is refused with the
// reason shown; the flow file keeps its approval. (Issue 47.)
func TestDashboardExplainWeakening(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	p := newPage(t)
	dir := thinkDir(t)
	writeFile(t, filepath.Join(dir, "publish.flow.hcl"), gatedFlow)
	writeFile(t, filepath.Join(dir, "tokens"), "dev read,run,author dev-token-0000001\n")
	content, _ := json.Marshal(ungatedFlow)
	newThinkServer(t, map[string][]string{"explain": {fmt.Sprintf(`{"diagnosis": "The run was cancelled while it waited for step check.",
		"fix": {"summary": "Publish without waiting.", "files": [{"path": "publish.flow.hcl", "content": %s}]}}`, content)}})
	srv := startServe(t, dir, nil, "--tokens-file", filepath.Join(dir, "tokens"))
	srv.token = "dev-token-0000001"
	var r runReply
	if code := srv.do("POST", "/v1/flows/publish/runs", `{}`, &r); code != 202 {
		t.Fatalf("start: %d %+v", code, r)
	}
	srv.waitStatus(r.RunID, "waiting")
	if code := srv.do("POST", "/v1/runs/"+r.RunID+"/cancel", `{}`, nil); code != 200 {
		t.Fatalf("cancel: %d", code)
	}
	srv.waitStatus(r.RunID, "cancelled")

	p.do("explaining the cancelled run",
		chromedp.Navigate(srv.url+"/"),
		p.until(`(sessionStorage.setItem('flowctl-token', 'dev-token-0000001'), true)`),
		chromedp.Navigate(srv.url+"/runs/"+r.RunID),
		p.until(`document.querySelector('#explain-run') !== null`),
		chromedp.Click(chromedp.CSS(`#explain-run`)),
		p.until(`document.querySelector('#proposal-weakens') !== null`))
	if got := p.text("#proposal-weakens"); !strings.Contains(got, "This change weakens the flow") || !strings.Contains(got, `publish.flow.hcl: The approval step "check" is removed.`) {
		t.Errorf("the weakening shown: %q", got)
	}
	color, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`getComputedStyle(document.querySelector('#proposal-weakens')).color`))
	if err != nil {
		t.Fatal(err)
	}
	failed, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`(() => { const s = document.createElement('span'); s.style.color = 'var(--failed)'; document.body.append(s); const c = getComputedStyle(s).color; s.remove(); return c; })()`))
	if err != nil {
		t.Fatal(err)
	}
	if color != failed || (color != "rgb(207, 34, 46)" && color != "rgb(248, 81, 73)") {
		t.Errorf("the warning is %s, the failed colour %s", color, failed)
	}
	p.do("accepting without approve",
		chromedp.Click(chromedp.CSS(`#proposal-accept`)),
		p.until(`document.querySelector('#explain-result .error').textContent.includes('weakens the flow')`))
	if got := p.text("#proposal-status"); !strings.Contains(got, "staged") {
		t.Errorf("the proposal's status shown: %q", got)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "publish.flow.hcl")); string(b) != gatedFlow {
		t.Fatalf("the flow file changed:\n%s", b)
	}
}
