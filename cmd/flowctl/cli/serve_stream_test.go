package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/flowctl/flowctl/blocks/llm/llmtest"
)

const talkFlow = `
flow "talk" {}

provider "local" {
  base_url = "%s/v1"
}

step "say" {
  use      = "llm"
  provider = provider.local
  model    = "m"
  prompt   = "Say hello"
}

output "text" {
  value = step.say.text
}
`

// gatedModel streams "Hel" once start is closed, and the rest of its
// reply once more is.
func gatedModel(t *testing.T, start, more <-chan struct{}) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := llmtest.NewStream(w, "m")
		for _, gate := range []<-chan struct{}{start, more} {
			select {
			case <-gate:
			case <-time.After(2 * time.Minute):
			}
			if gate == start {
				st.Chunk("Hel")
			}
		}
		st.Chunk("lo, ")
		st.Chunk("world.")
		st.End(llmtest.Usage{Prompt: 3, Completion: 3})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestServeStreams: a served run's streaming step sends its text as
// step_delta events on the run's event stream, in order and before its
// step_finished, and the dashboard shows it growing in the step's panel
// while the run goes on.
func TestServeStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	browser := chromium(t)
	start, more := make(chan struct{}), make(chan struct{})
	model := gatedModel(t, start, more)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "talk.flow.hcl"), fmt.Sprintf(talkFlow, model.URL))
	srv := startServe(t, dir, nil)

	var started struct {
		RunID string `json:"run_id"`
	}
	if code := srv.do("POST", "/v1/flows/talk/runs", `{"inputs": {}}`, &started); code != http.StatusAccepted {
		t.Fatalf("start: %d", code)
	}
	stream := srv.openEvents(started.RunID, "")
	defer stream.close()

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(browser), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.WindowSize(1400, 1000))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancelCtx := chromedp.NewContext(actx)
	defer cancelCtx()
	until := func(js string) chromedp.Action[chromedp.Void] {
		return chromedp.Poll[chromedp.Void](js, chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(2*time.Minute))
	}
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			page, _ := chromedp.Run(ctx, chromedp.Poll[string](`document.querySelector('main').innerText`))
			t.Fatalf("%s: %v\nthe page:\n%s", what, err, page)
		}
	}
	do("the run's page, its step selected",
		chromedp.Navigate(srv.url+"/runs/"+started.RunID),
		until(`document.querySelector('g.node[data-step="say"]') !== null`),
		chromedp.Click(chromedp.CSS(`g.node[data-step="say"]`)),
		until(`document.querySelector('#detail h2') !== null`))
	close(start)
	do("the first text, while the step runs",
		until(`document.querySelector('#stream pre.stream')?.textContent === 'Hel'`))
	close(more)
	do("the whole reply, and the run's end",
		until(`document.querySelector('#stream pre.stream')?.textContent === 'Hello, world.'`),
		until(`document.querySelector('#run-status').textContent === 'ok'`))

	var texts []string
	finished := false
	for {
		e, ok := stream.next()
		if !ok {
			break
		}
		switch e.event {
		case "step_delta":
			if finished {
				t.Error("a step_delta after step_finished")
			}
			var d struct{ Text string }
			json.Unmarshal([]byte(e.data), &d)
			texts = append(texts, d.Text)
		case "step_finished":
			finished = true
		}
	}
	if got := strings.Join(texts, "|"); got != "Hel|lo, |world." {
		t.Errorf("the event stream's deltas: %q", got)
	}

	// The run's model call, in a page and whole.
	var page struct {
		Calls []struct {
			Seq      int64
			Step     string
			Response string
			Status   int
		}
	}
	if code := srv.do("GET", "/v1/runs/"+started.RunID+"/calls", "", &page); code != http.StatusOK || len(page.Calls) != 1 ||
		page.Calls[0].Step != "say" || page.Calls[0].Response != "Hello, world." || page.Calls[0].Status != 200 {
		t.Errorf("GET calls: %d %+v", code, page)
	}
	var one struct{ Seq int64 }
	if code := srv.do("GET", "/v1/runs/"+started.RunID+"/calls/1", "", &one); code != http.StatusOK || one.Seq != 1 {
		t.Errorf("GET calls/1: %d %+v", code, one)
	}
	if code := srv.do("GET", "/v1/runs/"+started.RunID+"/calls/2", "", nil); code != http.StatusNotFound {
		t.Errorf("GET calls/2: %d", code)
	}
	do("the step's calls in its panel, one opened",
		chromedp.Navigate(srv.url+"/runs/"+started.RunID),
		until(`document.querySelector('g.node[data-step="say"]') !== null`),
		chromedp.Click(chromedp.CSS(`g.node[data-step="say"]`)),
		until(`document.querySelector('#calls [data-call="1"]') !== null`),
		chromedp.Click(chromedp.CSS(`#calls [data-call="1"] summary`)),
		until(`document.querySelector('#calls [data-call="1"] .reply')?.textContent === 'Hello, world.'`),
		until(`document.querySelector('#calls [data-call="1"] .message')?.textContent.includes('Say hello')`))
}

// TestServeNoRecordPrompts: serve --no-record-prompts keeps a run's model
// calls out of the state.
func TestServeNoRecordPrompts(t *testing.T) {
	start, more := make(chan struct{}), make(chan struct{})
	close(start)
	close(more)
	model := gatedModel(t, start, more)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "talk.flow.hcl"), fmt.Sprintf(talkFlow, model.URL))
	srv := startServe(t, dir, nil, "--no-record-prompts")
	var started struct {
		RunID string `json:"run_id"`
	}
	if code := srv.do("POST", "/v1/flows/talk/runs", `{"inputs": {}}`, &started); code != http.StatusAccepted {
		t.Fatalf("start: %d", code)
	}
	srv.events(started.RunID, "")
	var page struct{ Calls []any }
	if code := srv.do("GET", "/v1/runs/"+started.RunID+"/calls", "", &page); code != http.StatusOK || len(page.Calls) != 0 {
		t.Errorf("GET calls: %d, %d calls; want none", code, len(page.Calls))
	}
}
