package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestDashboardExplain: on a failed run's page the Explain button asks
// serve (with a scripted model) why the run failed; the page shows the
// diagnosis and the diff of the checked fix, and Accept writes it. The
// model never gets the secret's value.
func TestDashboardExplain(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	browser := chromium(t)
	dir, runID := explainDir(t)
	model := newThinkServer(t, map[string][]string{
		"explain": {explainReply(splitDiagnosis, "Split the text's body field.", fixedSplit)},
	})
	srv := startServe(t, dir, nil)

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(browser), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.WindowSize(1400, 1000))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancelCtx := chromedp.NewContext(actx)
	defer cancelCtx()
	until := func(js string) chromedp.Action[chromedp.Void] {
		return chromedp.Poll[chromedp.Void](js, chromedp.WithPollingInterval(100*time.Millisecond), chromedp.WithPollingTimeout(2*time.Minute))
	}
	text := func(sel string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Poll[string](fmt.Sprintf(`document.querySelector(%q).textContent`, sel)))
		if err != nil {
			t.Fatalf("%s: %v", sel, err)
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

	do("explaining the failed run",
		chromedp.Navigate(srv.url+"/runs/"+runID),
		until(`document.querySelector('#explain-run') !== null`),
		chromedp.Click(chromedp.CSS(`#explain-run`)),
		until(`document.querySelector('#explain-diagnosis') !== null`),
		until(`document.querySelector('#explain-diff') !== null`))
	if got := text("#explain-diagnosis"); got != splitDiagnosis {
		t.Errorf("the diagnosis shown: %q", got)
	}
	diff := text("#explain-diff")
	if !strings.Contains(diff, "+      return { words: input.text.body.split") || !strings.Contains(diff, "blocks/split_words.block.hcl") {
		t.Errorf("the diff shown:\n%s", diff)
	}
	if u := text("#explain-usage"); !strings.Contains(u, "1 model call, 10 prompt + 5 completion tokens") {
		t.Errorf("the usage shown: %q", u)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "blocks", "split_words.block.hcl")); string(b) != brokenSplit {
		t.Fatal("explain wrote the block file")
	}
	do("accepting the fix",
		chromedp.Click(chromedp.CSS(`#proposal-accept`)),
		until(`document.querySelector('#proposal-status').textContent.includes('accepted')`))
	if b, _ := os.ReadFile(filepath.Join(dir, "blocks", "split_words.block.hcl")); string(b) != fixedSplit {
		t.Errorf("accept did not write the fix:\n%s", b)
	}
	if n := len(model.recorded("explain")); n != 1 {
		t.Errorf("%d explain requests, want 1", n)
	}
	noSecret(t, model)
}
