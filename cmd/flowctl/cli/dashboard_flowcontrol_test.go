package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

const payDashboardFlow = `flow "pay" {}

step "check" {
  use     = "approval"
  message = "Pay the invoice?"
  input "amount" {
    type        = number
    description = "How much to pay"
  }
  input "note" {
    type    = string
    default = "none"
  }
}

step "double" {
  use   = "value"
  value = "${step.check.amount * 2} (${step.check.note})"
}

output "double" {
  value = step.double.value
}
`

// TestDashboardFlowControl drives a waiting run's page in headless
// Chromium: it names the run's version; the Pause button pauses the run
// and Resume resumes it; the approval's form has the step's input fields
// (a number, a text with its default); approving with a required field
// empty is refused, saying so, and approving with it filled in ends the
// run with the values as the step's outputs.
func TestDashboardFlowControl(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	browser := chromium(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "pay.flow.hcl"), payDashboardFlow)
	srv := startServe(t, dir, nil)
	var started struct {
		RunID string `json:"run_id"`
	}
	if code := srv.do("POST", "/v1/flows/pay/runs", `{}`, &started); code != 202 {
		t.Fatalf("starting a run: %d", code)
	}

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
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			page, _ := chromedp.Run(ctx, chromedp.Poll[string](`document.querySelector('main').innerText`))
			t.Fatalf("%s: %v\nthe page:\n%s", what, err, page)
		}
	}
	do("the run's page, waiting, with its version",
		chromedp.Navigate(srv.url+"/runs/"+started.RunID),
		until(`document.querySelector('#run-status') !== null && document.querySelector('#run-status').textContent === 'waiting'`),
		ready(`#run-version`),
		until(`/^[0-9a-f]{12}$/.test(document.querySelector('#run-version code').textContent)`))
	do("pause and resume",
		ready(`#run-pause`),
		chromedp.Click(css(`#run-pause`)),
		ready(`#run-paused`),
		until(`document.querySelector('#run-pause').textContent === 'Resume the run'`),
		chromedp.Click(css(`#run-pause`)),
		until(`document.querySelector('#run-paused') === null`),
		until(`document.querySelector('#run-pause').textContent === 'Pause the run'`))
	do("the form, a required field left empty",
		ready(`[data-approval="check"][data-fields="y"]`),
		ready(`#comment-check-field-amount`),
		until(`document.querySelector('#comment-check-field-amount').type === 'number'`),
		until(`document.querySelector('#comment-check-field-note').value === 'none'`),
		chromedp.Click(css(`[data-approval="check"] button.primary`)),
		until(`document.querySelector('[data-approval="check"] .error').textContent.includes('required')`))
	do("approved with the amount",
		chromedp.SendKeys(css(`#comment-check-field-amount`), "60"),
		chromedp.Click(css(`[data-approval="check"] button.primary`)),
		until(`document.querySelector('#run-status').textContent === 'ok'`),
		until(`document.querySelector('#outputs').textContent.includes('120 (none)')`))
}
