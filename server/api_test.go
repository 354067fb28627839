package server

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"testing"
	"time"
)

const shapeFlow = `flow "shape" {}

input "n" {
  type = number
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
  value = range(input.n)
}

step "halves" {
  use      = "half"
  for_each = step.nums.value
  x        = each.value
}

output "total" {
  value = length(step.nums.value)
}
`

// TestRunShape: GET /v1/runs/{id} gives a step's outputs as plain JSON,
// as the run's outputs are, and the run's error in the shape of its
// run_finished event; a step of few instances is listed.
func TestRunShape(t *testing.T) {
	notes := make(chan []byte, 4)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		notes <- b
	}))
	defer hook.Close()
	ts := newTestServer(t, files{"shape.flow.hcl": shapeFlow}, func(o *Options) { o.NotifyURLs = []string{hook.URL} })
	id := ts.start("shape", `{"inputs": {"n": 5}}`)
	ts.wait(id, "failed")
	var run struct {
		Error json.RawMessage `json:"error"`
		Steps []struct {
			Step     string          `json:"step"`
			Instance string          `json:"instance"`
			Status   string          `json:"status"`
			Outputs  json.RawMessage `json:"outputs"`
		} `json:"steps"`
		LastEvent int64 `json:"last_event"`
	}
	ts.code("GET", "/v1/runs/"+id, "", &run)
	got := map[string]string{}
	for _, st := range run.Steps {
		got[st.Step+"["+st.Instance+"]"] = st.Status + " " + string(compact(st.Outputs))
	}
	if got["nums[]"] != `ok {"value":[0,1,2,3,4]}` || got["halves[0]"] != `ok {"y":0}` || got["halves[4]"] != `ok {"y":2}` ||
		got["halves[3]"] != "failed " || len(run.Steps) != 6 {
		t.Errorf("the steps: %v", got)
	}
	// The error is the run_finished event's.
	var finished struct {
		Error json.RawMessage `json:"error"`
	}
	evs, err := ts.store.Events(id, 0, 0)
	if err != nil || len(evs) == 0 || evs[len(evs)-1].Type != "run_finished" || run.LastEvent != evs[len(evs)-1].Seq {
		t.Fatalf("events: %v %v (last_event %d)", len(evs), err, run.LastEvent)
	}
	json.Unmarshal(evs[len(evs)-1].Data, &finished)
	var e struct {
		Message     string `json:"message"`
		Diagnostics []struct {
			Summary, Detail, Step string
		} `json:"diagnostics"`
	}
	if err := json.Unmarshal(run.Error, &e); err != nil || e.Message == "" || len(e.Diagnostics) != 1 || e.Diagnostics[0].Step != "halves[3]" ||
		string(compact(run.Error)) != string(compact(finished.Error)) {
		t.Errorf("the error: %s\nrun_finished's: %s", run.Error, finished.Error)
	}
	// And the notification's.
	var note struct {
		Error json.RawMessage `json:"error"`
	}
	select {
	case b := <-notes:
		json.Unmarshal(b, &note)
	case <-time.After(time.Minute):
		t.Fatal("no notification")
	}
	if string(compact(note.Error)) != string(compact(finished.Error)) {
		t.Errorf("the notification's error: %s", note.Error)
	}
}

func compact(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	var v any
	json.Unmarshal(b, &v)
	out, _ := json.Marshal(v)
	return out
}

// TestSummarizedStep: a step of more than 50 instances is a summary in
// GET /v1/runs/{id} (counts by status, the first instances that did not
// succeed), and its instances are read a page at a time, by status too.
func TestSummarizedStep(t *testing.T) {
	ts := newTestServer(t, files{"shape.flow.hcl": shapeFlow}, nil)
	id := ts.start("shape", `{"inputs": {"n": 700}}`)
	ts.wait(id, "failed")
	var run struct {
		Steps      []struct{ Step string } `json:"steps"`
		Summarized []struct {
			Step         string                                     `json:"step"`
			Instances    int                                        `json:"instances"`
			Counts       map[string]int                             `json:"counts"`
			Unsuccessful []struct{ Instance, Status, Error string } `json:"unsuccessful"`
			More         bool                                       `json:"more"`
			Links        map[string]string                          `json:"links"`
		} `json:"summarized"`
	}
	ts.code("GET", "/v1/runs/"+id, "", &run)
	if len(run.Steps) != 1 || run.Steps[0].Step != "nums" || len(run.Summarized) != 1 {
		t.Fatalf("the run: %+v", run)
	}
	s := run.Summarized[0]
	if s.Step != "halves" || s.Instances != 700 || s.Counts["ok"] != 630 || s.Counts["failed"] != 70 ||
		len(s.Unsuccessful) != 50 || !s.More || s.Unsuccessful[0].Instance != "3" || s.Unsuccessful[1].Instance != "13" ||
		s.Unsuccessful[0].Error == "" || s.Links["instances"] != "/v1/runs/"+id+"/steps/halves" {
		t.Errorf("the summary: %+v", s)
	}
	page := func(q url.Values) ([]string, string) {
		var p struct {
			Instances  []struct{ Instance, Status string } `json:"instances"`
			NextCursor string                              `json:"next_cursor"`
		}
		if code := ts.code("GET", s.Links["instances"]+"?"+q.Encode(), "", &p); code != 200 {
			t.Fatalf("%v: %d", q, code)
		}
		var keys []string
		for _, in := range p.Instances {
			keys = append(keys, in.Instance)
		}
		return keys, p.NextCursor
	}
	for _, c := range []struct {
		status string
		want   []string
	}{
		{"", func() (w []string) {
			for i := range 700 {
				w = append(w, strconv.Itoa(i))
			}
			return w
		}()},
		{"failed", func() (w []string) {
			for i := 3; i < 700; i += 10 {
				w = append(w, strconv.Itoa(i))
			}
			return w
		}()},
	} {
		q := url.Values{"limit": {"64"}}
		if c.status != "" {
			q.Set("status", c.status)
		}
		var all []string
		for pages := 0; pages < 100; pages++ {
			keys, next := page(q)
			all = append(all, keys...)
			if next == "" {
				break
			}
			q.Set("cursor", next)
		}
		if !slices.Equal(all, c.want) {
			t.Errorf("status %q: %d instances, %v…", c.status, len(all), all[:min(len(all), 20)])
		}
	}
	if code := ts.code("GET", s.Links["instances"]+"?limit=0", "", nil); code != 400 {
		t.Errorf("limit=0: %d", code)
	}
	if code := ts.code("GET", "/v1/runs/nope/steps/halves", "", nil); code != 404 {
		t.Errorf("no run: %d", code)
	}
}
