package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/flowctl/flowctl/runtime/state"
)

// TestDashboardEvals drives the dashboard's evals page in headless
// Chromium: reached from the navigation, it shows the latest results of
// the eval (a row a variant, each score's mean and interval, the failed
// gate) and each score's history as an inline SVG line chart, one line a
// variant with a point a results, oldest first.
func TestDashboardEvals(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	browser := chromium(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "review.flow.hcl"), dashboardFlow)
	st, err := state.Open(filepath.Join(dir, ".flowctl"))
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now().Add(-time.Hour)
	keepEval(t, st, t0, nil)                                               // short: 1
	keepEval(t, st, t0.Add(time.Minute), map[int]bool{2: true})            // short: 5/6
	keepEval(t, st, t0.Add(2*time.Minute), map[int]bool{2: true, 4: true}) // short: 4/6
	st.Close()
	srv := startServe(t, dir, nil)

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(browser), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.WindowSize(1200, 900))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancelCtx := chromedp.NewContext(actx)
	defer cancelCtx()
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
	if err := chromedp.Do(ctx,
		chromedp.Navigate(srv.url+"/"),
		ready(`a[href="/evals"]`),
		chromedp.Click(chromedp.CSS(`a[href="/evals"]`)),
		until(`location.pathname === '/evals'`),
		ready(`section.eval[data-eval="triage"] figure.eval-chart svg polyline`),
	); err != nil {
		page, _ := chromedp.Run(ctx, chromedp.Poll[string](`document.querySelector('main').innerText`))
		t.Fatalf("the evals page: %v\n%s", err, page)
	}
	rows := eval(`[...document.querySelectorAll('section.eval table.eval-latest tbody tr')].map(r => [...r.cells].map(c => c.textContent).join('|')).join('\n')`)
	if !strings.Contains(rows, "baseline|6|1.000 [1.000, 1.000]") || !strings.Contains(rows, "short|6|0.667 [") {
		t.Errorf("the latest results:\n%s", rows)
	}
	if gates := eval(`document.querySelector('section.eval ul.gates').textContent`); !strings.Contains(gates, "failed: category") {
		t.Errorf("the gates: %s", gates)
	}
	chart := eval(`[...document.querySelectorAll('figure.eval-chart[data-score="category"] g.series')].map(g =>
		g.dataset.variant + ':' + g.querySelectorAll('circle').length + ':' + [...g.querySelectorAll('circle title')].map(t => t.textContent.split(',')[0]).join(';') +
		':' + g.querySelector('polyline').getAttribute('points').split(' ').length).join('\n')`)
	want := "baseline:3:baseline: 1.000;baseline: 1.000;baseline: 1.000:3\nshort:3:short: 1.000;short: 0.833;short: 0.667:3"
	if chart != want {
		t.Errorf("the chart of category:\n%s\nwant\n%s", chart, want)
	}
	// The lower mean is drawn lower: SVG's y grows downwards.
	ys := eval(`[...document.querySelectorAll('figure.eval-chart g.series[data-variant="short"] circle')].map(c => c.getAttribute('cy')).join(',')`)
	var y0, y1, y2 float64
	if _, err := fmt.Sscanf(ys, "%g,%g,%g", &y0, &y1, &y2); err != nil || !(y0 < y1 && y1 < y2) {
		t.Errorf("the points of short: %s", ys)
	}
}
