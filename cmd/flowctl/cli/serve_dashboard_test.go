package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// halvesFlow runs a js block once for each of n numbers; one in ten fails.
const halvesFlow = `flow "halves" {}

input "n" {
  type    = number
  default = 5000
}

block "half" {
  runtime = "js"
  input "x" {
    type = number
  }
  output "y" {
    type = number
  }
  source = <<-JS
    function execute(input) {
      if (input.x % 10 == 3) throw new Error("bad " + input.x);
      return { y: input.x / 2 };
    }
  JS
}

step "nums" {
  use   = "value"
  value = flatten([for i in range(input.n / 100) : range(i * 100, i * 100 + 100)])
}

step "halves" {
  use      = "half"
  for_each = step.nums.value
  x        = each.value
}

step "count" {
  use   = "value"
  value = length(step.nums.value)
}
`

// pairFlow asks for a decision on each of two keys.
const pairFlow = `flow "pair" {}

step "each" {
  use      = "approval"
  for_each = { a = "first", b = "second" }
  message  = "Publish ${each.key}?"
}
`

// TestDashboardWithoutToken drives the dashboard of a server without a
// token (its writes carry the page's CSRF token): a flow's page draws its
// steps without a state and explains the × of a for_each step; a waiting
// run's duration runs on; a for_each approval step's instances are
// decided one by one; the run page of a 5,000-instance run follows it
// live, summarizes the big step (counts, its instances a page at a time)
// and bolds the same critical path in the graph as in the timeline.
func TestDashboardWithoutToken(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	browser := chromium(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "review.flow.hcl"), dashboardFlow)
	writeFile(t, filepath.Join(dir, "halves.flow.hcl"), halvesFlow)
	writeFile(t, filepath.Join(dir, "pair.flow.hcl"), pairFlow)
	srv := startServe(t, dir, nil)

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(browser), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.WindowSize(1400, 1000))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancelCtx := chromedp.NewContext(actx)
	defer cancelCtx()
	type css = chromedp.CSS
	until := func(js string) chromedp.Action[chromedp.Void] {
		return chromedp.Poll[chromedp.Void](js, chromedp.WithPollingInterval(100*time.Millisecond), chromedp.WithPollingTimeout(2*time.Minute))
	}
	ready := func(sel string) chromedp.Action[chromedp.Void] {
		return until(fmt.Sprintf(`document.querySelector(%q) !== null`, sel))
	}
	eval := func(js string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Poll[string](js))
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		return v
	}
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			page, _ := chromedp.Run(ctx, chromedp.Poll[string](`document.querySelector('main').innerText`))
			t.Fatalf("%s: %v\nthe page:\n%s", what, err, page)
		}
	}

	do("the flow's page",
		chromedp.Navigate(srv.url+"/flows/halves"),
		ready(`g.node[data-step="halves"]`))
	if sub := eval(`[...document.querySelectorAll('g.node text.sub')].map(t => t.textContent).join('|')`); strings.Contains(sub, "pending") || !strings.Contains(sub, "half ×") {
		t.Errorf("the flow page's nodes: %s", sub)
	}
	if page := eval(`document.querySelector('main').innerText`); !strings.Contains(page, "runs once for each item of its for_each") {
		t.Errorf("the flow page does not explain ×:\n%s", page)
	}

	do("a run from the form, without a token",
		chromedp.Navigate(srv.url+"/flows/review"),
		ready(`#run-form button[type=submit]`),
		chromedp.Click(css(`#run-form button[type=submit]`)),
		until(`location.pathname.startsWith('/runs/')`),
		until(`document.querySelector('[data-approval="review"]') !== null`),
		until(`document.querySelector('#run-status').textContent === 'waiting'`),
		until(`document.querySelector('#run-duration').textContent.endsWith('so far')`))
	do("the approval, without a token",
		ready(`[data-approval="review"] button.primary`),
		chromedp.Click(css(`[data-approval="review"] button.primary`)),
		until(`document.querySelector('#run-status').textContent === 'ok'`),
		until(`!document.querySelector('#run-duration').textContent.endsWith('so far')`))

	// A for_each approval step: a section for each instance, each decided
	// by its own buttons. A comment typed in one is kept while the other is
	// decided and the run, resumed, sends its events and waits again.
	do("the approvals of a for_each step",
		chromedp.Navigate(srv.url+"/flows/pair"),
		ready(`#run-form button[type=submit]`),
		chromedp.Click(css(`#run-form button[type=submit]`)),
		until(`location.pathname.startsWith('/runs/')`),
		until(`document.querySelectorAll('[data-approval="each"]').length === 2`),
		until(`document.querySelector('#run-status').textContent === 'waiting'`),
		ready(`#comment-each-a`),
		until(`(document.querySelector('[data-instance="a"]').dataset.mark = 'typed') === 'typed'`),
		chromedp.SendKeys(css(`#comment-each-a`), "no"),
		ready(`[data-approval="each"][data-instance="b"] button.primary`),
		chromedp.Click(css(`[data-approval="each"][data-instance="b"] button.primary`)),
		until(`document.querySelectorAll('[data-approval="each"]').length === 1`),
		// The resumed run's events came: the detail, drawn again as the
		// run is read after them, has b's decision.
		ready(`g.node[data-step="each"]`),
		chromedp.Click(css(`g.node[data-step="each"]`)),
		until(`document.querySelector('#detail').textContent.includes('"approved": true')`),
		until(`document.querySelector('#run-status').textContent === 'waiting'`),
		until(`document.querySelector('g.node[data-step="each"] text.sub').textContent === 'approval × 2 · waiting'`),
		until(`document.querySelector('[data-approval="each"]').dataset.instance === 'a'`),
		until(`document.querySelector('[data-instance="a"]').dataset.mark === 'typed'`),
		until(`document.querySelector('#comment-each-a').value === 'no'`),
		ready(`[data-approval="each"][data-instance="a"] button.danger`),
		chromedp.Click(css(`[data-approval="each"][data-instance="a"] button.danger`)),
		until(`document.querySelector('#run-status').textContent === 'failed'`),
		until(`document.querySelectorAll('[data-approval]').length === 0`))
	if page := eval(`document.querySelector('main').innerText`); !strings.Contains(page, "rejected by") || !strings.Contains(page, ": no") {
		t.Errorf("the rejected instance's run page:\n%s", page)
	}

	// The page is open while the run runs: it follows 5,000 instances.
	var big runReply
	if code := srv.do("POST", "/v1/flows/halves/runs", `{}`, &big); code != 202 {
		t.Fatalf("starting the big run: %d %+v", code, big)
	}
	do("a run of 5,000 instances",
		chromedp.Navigate(srv.url+"/runs/"+big.RunID),
		ready(`g.node[data-step="halves"]`),
		until(`document.querySelector('#run-status').textContent === 'failed'`),
		until(`document.querySelector('g.node[data-step="halves"]').dataset.status === 'failed'`),
		until(`document.querySelector('g.node[data-step="count"]').dataset.status === 'skipped' || document.querySelector('g.node[data-step="count"]').dataset.status === 'cancelled' || document.querySelector('g.node[data-step="count"]').dataset.status === 'ok'`),
		until(`document.querySelector('g.node[data-step="halves"] text.sub').textContent.includes('× 5000')`))
	graphPath, timelinePath := eval(`document.querySelector('#graph svg').dataset.critical`), eval(`document.querySelector('#timeline svg').dataset.critical`)
	if graphPath == "" || graphPath != timelinePath {
		t.Errorf("critical paths: the graph's %q, the timeline's %q", graphPath, timelinePath)
	}
	if bold := eval(`[...document.querySelectorAll('#graph path.edge.critical')].map(e => e.dataset.edge).join(' ')`); !strings.Contains(bold, "nums→halves") {
		t.Errorf("the graph's bold edges: %q (path %q)", bold, graphPath)
	}
	do("the big step's detail",
		chromedp.Click(css(`g.node[data-step="halves"]`)),
		until(`document.querySelector('#counts') !== null && document.querySelector('#counts').textContent.includes('5000')`),
		until(`document.querySelector('#detail').textContent.includes('Did not succeed (the first 50)')`),
		until(`document.querySelectorAll('#detail > .instance').length === 50 && document.querySelector('#detail > .instance').textContent.includes('bad 3')`),
		ready(`#detail button`),
		chromedp.Click(css(`#detail button`)),
		until(`document.querySelectorAll('#instances .instance').length === 50`),
		chromedp.Click(css(`#detail button`)),
		until(`document.querySelectorAll('#instances .instance').length === 100`))
	counts := eval(`document.querySelector('#counts').textContent`)
	if !strings.Contains(counts, "ok4500") || !strings.Contains(counts, "failed500") {
		t.Errorf("the counts: %s", counts)
	}
}
