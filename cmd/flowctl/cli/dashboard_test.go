package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/flowctl/flowctl/bench/flowgen"
)

const dashboardFlow = `flow "review" {
  description = "Greets someone, once a person approves"
}

input "who" {
  type        = string
  default     = "world"
  description = "Whom to greet"
}

input "times" {
  type    = number
  default = 1
}

step "greet" {
  use   = "value"
  value = "Hello, ${input.who}!"
}

step "shout" {
  use   = "value"
  value = upper(step.greet.value)
}

step "review" {
  use     = "approval"
  message = "Publish the greeting?"
}

step "publish" {
  use        = "value"
  value      = "${step.shout.value} x${input.times}"
  depends_on = [step.review]
}

output "greeting" {
  value = step.publish.value
}
`

// chromium is the browser the dashboard tests drive: Debian's chromium.
// It is installed in CI (.ci/run), where its absence fails the tests.
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("no chromium to run the dashboard tests: apt-get install -y chromium")
	}
	t.Skip("no chromium (apt-get install -y chromium); CI runs these tests")
	return ""
}

// TestDashboard drives the dashboard of flowctl serve in headless
// Chromium: the token is asked for once; the runs page lists nothing; a
// run started from the flow's form shows its DAG, whose nodes turn ok as
// the events come; the approval step is approved with its button; the run
// finishes with every node ok and its outputs; a node's detail shows its
// outputs; and a screenshot of the run page is saved.
func TestDashboard(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	browser := chromium(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "review.flow.hcl"), dashboardFlow)
	writeFile(t, filepath.Join(dir, "numbers.flow.hcl"), `flow "numbers" {}

step "parse" {
  use      = "value"
  for_each = ["1", "x", "3"]
  value    = tonumber(each.value)
}
`)
	os.MkdirAll(filepath.Join(dir, "big"), 0o755)
	writeFile(t, filepath.Join(dir, "big", "chains.flow.hcl"), string(flowgen.Chains(50, 10)))
	srv := startServe(t, dir, []string{"FLOWCTL_TOKEN=t0k3n-0123456789abcdef"})

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(browser), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.WindowSize(1400, 1000))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancelCtx := chromedp.NewContext(actx)
	defer cancelCtx()

	type css = chromedp.CSS
	// until waits, far longer than it should take, for a JavaScript
	// expression to be true.
	until := func(js string) chromedp.Action[chromedp.Void] {
		return chromedp.Poll[chromedp.Void](js, chromedp.WithPollingInterval(100*time.Millisecond), chromedp.WithPollingTimeout(2*time.Minute))
	}
	// ready waits for an element, by script: a DOM query of the driver
	// that starts while the page replaces its content can wait forever.
	ready := func(sel string) chromedp.Action[chromedp.Void] {
		return until(fmt.Sprintf(`document.querySelector(%q) !== null`, sel))
	}
	text := func(sel string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Text(css(sel)))
		if err != nil {
			t.Fatalf("the text of %s: %v", sel, err)
		}
		return v
	}
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			page, _ := chromedp.Run(ctx, chromedp.Poll[string](`document.querySelector('main').innerText + '\n' + [...document.querySelectorAll('g.node')].map(n => n.dataset.step + '=' + n.dataset.status).join(' ')`))
			t.Fatalf("%s: %v\nthe page:\n%s", what, err, page)
		}
	}
	do("the token, asked for once",
		chromedp.Navigate(srv.url+"/"),
		ready(`#token-form`),
		ready(`#token`),
		chromedp.SendKeys(css(`#token`), "t0k3n-0123456789abcdef"),
		ready(`#token-form button[type=submit]`),
		chromedp.Click(css(`#token-form button[type=submit]`)),
		ready(`#runs`),
		until(`document.querySelector('#runs tbody').textContent.includes('No runs yet.')`))
	do("the flow's page",
		ready(`a[href="/flows"]`),
		chromedp.Click(css(`a[href="/flows"]`)),
		ready(`a[href="/flows/review"]`),
		ready(`a[href="/flows/review"]`),
		chromedp.Click(css(`a[href="/flows/review"]`)),
		ready(`#run-form`),
		until(`document.querySelector('g.node[data-step="publish"]') !== null`))
	flowText := text(`main`)
	do("a run from the form",
		until(`(document.querySelector('#in-who').value = '') === ''`), // clear the default
		ready(`#in-who`),
		chromedp.SendKeys(css(`#in-who`), "Ada"),
		ready(`#run-form button[type=submit]`),
		chromedp.Click(css(`#run-form button[type=submit]`)),
		until(`location.pathname.startsWith('/runs/')`),
		ready(`g.node[data-step="greet"]`),
		until(`document.querySelector('g.node[data-step="greet"]').dataset.status === 'ok'`),
		until(`document.querySelector('g.node[data-step="review"]').dataset.status === 'waiting'`),
		until(`document.querySelector('[data-approval="review"]') !== null`))
	// The section is marked, and a comment typed; the run's later events
	// and readings (it goes on to wait) keep both, and the button.
	do("the approval",
		ready(`#comment-review`),
		until(`(document.querySelector('[data-approval="review"]').dataset.mark = 'typed') === 'typed'`),
		chromedp.SendKeys(css(`#comment-review`), "looks right"),
		until(`document.querySelector('#run-status').textContent === 'waiting'`),
		until(`document.querySelector('#run-duration').textContent.endsWith('so far')`),
		until(`document.querySelector('[data-approval="review"]').dataset.mark === 'typed'`),
		until(`document.querySelector('#comment-review').value === 'looks right'`),
		ready(`[data-approval="review"] button.primary`),
		chromedp.Click(css(`[data-approval="review"] button.primary`)),
		until(`[...document.querySelectorAll('g.node')].every(n => n.dataset.status === 'ok')`),
		until(`document.querySelector('#run-status').textContent === 'ok'`),
		until(`document.querySelector('#outputs').textContent.includes('HELLO, ADA! x1')`))
	url, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	status, outputs := text(`#run-status`), text(`#outputs`)
	do("a node's detail",
		ready(`g.node[data-step="shout"]`),
		chromedp.Click(css(`g.node[data-step="shout"]`)),
		until(`document.querySelector('#detail').textContent.includes('HELLO, ADA!')`))
	detail := text(`#detail`)
	do("the approval's detail",
		ready(`g.node[data-step="review"]`),
		chromedp.Click(css(`g.node[data-step="review"]`)),
		until(`document.querySelector('#detail').textContent.includes('Step review')`))
	if review := text(`#detail`); !strings.Contains(review, "looks right") {
		t.Errorf("the approval step's outputs have not the comment typed:\n%s", review)
	}
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(flowText, "Greets someone, once a person approves") || !strings.Contains(flowText, "Whom to greet") {
		t.Errorf("the flow page:\n%s", flowText)
	}
	if status != "ok" || !strings.Contains(outputs, `"greeting": "HELLO, ADA! x1"`) {
		t.Errorf("the run: %s, outputs %s", status, outputs)
	}
	if !strings.Contains(detail, "Step shout") || !strings.Contains(detail, "Attempts") {
		t.Errorf("the detail panel:\n%s", detail)
	}
	if !bytes.HasPrefix(shot, []byte("\x89PNG")) || len(shot) < 10_000 {
		t.Errorf("the screenshot: %d bytes", len(shot))
	}
	// The run, as the API has it: approved with the comment.
	var run struct {
		Status string `json:"status"`
	}
	id := url[strings.LastIndex(url, "/")+1:]
	srv.token = "t0k3n-0123456789abcdef"
	if code := srv.do("GET", "/v1/runs/"+id, "", &run); code != 200 || run.Status != "ok" {
		t.Errorf("GET the run: %d %+v", code, run)
	}
	// The screenshot is a test artifact: kept in FLOWCTL_ARTIFACTS when
	// set, else in the test's directory.
	out := os.Getenv("FLOWCTL_ARTIFACTS")
	if out == "" {
		out = t.TempDir()
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "dashboard-run.png"), shot, 0o644); err != nil {
		t.Fatal(err)
	}
	// A flow of 500 steps: the page lays them out and applies their
	// events (in batches) until every node is ok (value steps are cached,
	// and the chains compute the same values).
	var big runReply
	if code := srv.do("POST", "/v1/flows/chains/runs", `{}`, &big); code != 202 {
		t.Fatalf("starting the big run: %d %+v", code, big)
	}
	do("a run of 500 steps",
		chromedp.Navigate(srv.url+"/runs/"+big.RunID),
		until(`document.querySelectorAll('g.node').length === 500`),
		until(`[...document.querySelectorAll('g.node')].every(n => ['ok', 'cached'].includes(n.dataset.status))`),
		until(`document.querySelector('#run-status').textContent === 'ok'`))

	// A for_each step whose instance 1 fails: its panel shows the failed
	// instance first, each headed "instance N".
	var parse runReply
	if code := srv.do("POST", "/v1/flows/numbers/runs", `{}`, &parse); code != 202 {
		t.Fatalf("starting the numbers run: %d %+v", code, parse)
	}
	do("a failed for_each step's panel",
		chromedp.Navigate(srv.url+"/runs/"+parse.RunID),
		until(`document.querySelector('#run-status') !== null && document.querySelector('#run-status').textContent === 'failed'`),
		ready(`g.node[data-step="parse"]`),
		chromedp.Click(css(`g.node[data-step="parse"]`)),
		until(`document.querySelectorAll('#detail .instance').length === 3`))
	insts, err := chromedp.Run(ctx, chromedp.Poll[string](`[...document.querySelectorAll('#detail .instance')].map(i => i.dataset.status + ' ' + i.querySelector('h3').textContent).join(', ')`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(insts, "failed instance 1, ") || !strings.Contains(insts, "ok instance 0") {
		t.Errorf("the for_each step's instances, in the panel's order: %s; want the failed instance 1 first, each headed \"instance N\"", insts)
	}
	// The page links an icon, which the server has.
	icon, err := chromedp.Run(ctx, chromedp.Poll[string](`document.querySelector('link[rel=icon]') ? document.querySelector('link[rel=icon]').getAttribute('href') : 'none'`))
	if err != nil || icon != "/favicon.ico" {
		t.Errorf("the page's icon link: %q, %v", icon, err)
	}
	resp, err := http.Get(srv.url + "/favicon.ico")
	if err != nil {
		t.Fatal(err)
	}
	svg, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/svg+xml" || !bytes.HasPrefix(svg, []byte("<svg")) {
		t.Errorf("GET /favicon.ico: %d %s %.40q", resp.StatusCode, resp.Header.Get("Content-Type"), svg)
	}

	// Without the token (a new browser context: a new session), the
	// pages show no data.
	ctx2, cancel2 := chromedp.NewContext(ctx, chromedp.WithNewBrowserContext())
	defer cancel2()
	if err := chromedp.Do(ctx2, chromedp.Navigate(srv.url+"/runs/"+id), ready(`#token-form`)); err != nil {
		t.Fatal(err)
	}
	body, err := chromedp.Run(ctx2, chromedp.Text(css(`main`)))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(body, "HELLO") || strings.Contains(body, id) {
		t.Errorf("the page shows data without the token:\n%s", body)
	}
}
