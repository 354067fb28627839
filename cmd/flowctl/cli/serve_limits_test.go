package cli

import (
	"fmt"
	"github.com/chromedp/chromedp"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// limitsFlow is a flow whose runs call a sink with their key and tag,
// under a concurrency key, a rate limit or a debounce (limit).
const limitsFlow = `
flow %q {}

input "sink" {
  type = string
}

input "key" {
  type = string
}

input "tag" {
  type    = string
  default = ""
}

%s

step "call" {
  use = "http"
  url = "${input.sink}/hit?key=${input.key}&tag=${input.tag}"
}

output "tag" {
  value = input.tag
}
`

// limitSink is a side-effect server that counts the requests under way
// per key, the most at once, and the order they came in; it holds each
// request until released.
type limitSink struct {
	*httptest.Server
	mu      sync.Mutex
	now     map[string]int
	most    map[string]int
	order   []string
	release chan struct{}
}

func newLimitSink(t *testing.T) *limitSink {
	s := &limitSink{now: map[string]int{}, most: map[string]int{}, release: make(chan struct{})}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key, tag := r.URL.Query().Get("key"), r.URL.Query().Get("tag")
		s.mu.Lock()
		s.now[key]++
		s.most[key] = max(s.most[key], s.now[key])
		s.order = append(s.order, tag)
		s.mu.Unlock()
		select {
		case <-s.release:
		case <-r.Context().Done(): // its server was killed
		}
		s.mu.Lock()
		s.now[key]--
		s.mu.Unlock()
		w.Write([]byte("ok"))
	}))
	t.Cleanup(func() {
		s.open()
		s.Close()
	})
	return s
}

// open lets every request through, from now on.
func (s *limitSink) open() {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.release:
	default:
		close(s.release)
	}
}

// underWay reports whether the requests under way are those of want.
func (s *limitSink) underWay(want map[string]int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, n := range want {
		if s.now[k] != n {
			return false
		}
	}
	return true
}

func limitsDir(t *testing.T, flows map[string]string) string {
	dir := t.TempDir()
	for name, limit := range flows {
		if err := os.WriteFile(filepath.Join(dir, name+".flow.hcl"), []byte(fmt.Sprintf(limitsFlow, name, limit)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

type limitRun struct {
	Status     string `json:"status"`
	WaitingFor []struct {
		Limit string `json:"limit"`
	} `json:"waiting_for"`
	Outputs map[string]string `json:"outputs"`
}

// start starts a run of flow and returns its id.
func (p *serveProc) start(flow, body string) string {
	p.t.Helper()
	var r runReply
	if code := p.do("POST", "/v1/flows/"+flow+"/runs", body, &r); code != 202 {
		p.t.Fatalf("start of %s with %s: %d %+v", flow, body, code, r.Error)
	}
	return r.RunID
}

// waitLimit polls a run until it is queued waiting for the limit want.
func (p *serveProc) waitLimit(id, want string) {
	p.t.Helper()
	var run limitRun
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		run = limitRun{}
		if p.do("GET", "/v1/runs/"+id, "", &run) == 200 && run.Status == "queued" && len(run.WaitingFor) == 1 && run.WaitingFor[0].Limit == want {
			return
		}
	}
	p.t.Fatalf("run %s is %+v, not queued waiting for %s", id, run, want)
}

// eventually waits, far longer than it should take, for ok.
func eventually(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if ok() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// TestServeConcurrencyKey: runs of a flow with a concurrency key of 1
// run one at a time per key, and runs of another key at the same time;
// a queued run says what it waits for; a run of higher priority starts
// before one queued earlier.
func TestServeConcurrencyKey(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	sink := newLimitSink(t)
	dir := limitsDir(t, map[string]string{"serial": "concurrency {\n  key   = input.key\n  limit = 1\n}"})
	p := startServe(t, dir, nil)
	body := func(key, tag string, priority int) string {
		return fmt.Sprintf(`{"inputs": {"sink": %q, "key": %q, "tag": %q}, "priority": %d}`, sink.URL, key, tag, priority)
	}
	a1 := p.start("serial", body("a", "a1", 0))
	eventually(t, "a1 under way", func() bool { return sink.underWay(map[string]int{"a": 1}) })
	a2 := p.start("serial", body("a", "a2", 0))
	p.waitLimit(a2, `concurrency key "a"`)
	a3 := p.start("serial", body("a", "a3", 5))
	b1 := p.start("serial", body("b", "b1", 0))
	// Another key runs while a1 does.
	eventually(t, "a1 and b1 under way", func() bool { return sink.underWay(map[string]int{"a": 1, "b": 1}) })
	p.waitLimit(a3, `concurrency key "a"`)
	out, err := flowctl(t, dir, "runs", "show", a2).CombinedOutput()
	if err != nil || !strings.Contains(string(out), `Waits for its turn: concurrency key "a"`) {
		t.Errorf("runs show of a queued run: %v\n%s", err, out)
	}
	sink.open()
	for _, id := range []string{a1, a2, a3, b1} {
		p.waitStatus(id, "ok")
	}
	sink.mu.Lock()
	defer sink.mu.Unlock()
	if sink.most["a"] != 1 || sink.most["b"] != 1 {
		t.Errorf("most requests at once: %v, want 1 of key a and 1 of b", sink.most)
	}
	if i, j := slices.Index(sink.order, "a3"), slices.Index(sink.order, "a2"); i < 0 || j < i {
		t.Errorf("order of the calls %v: a3 (priority 5) should come before a2", sink.order)
	}
}

// TestServeRateLimitDebounce: a rate limit of 2 an hour starts two runs
// of a key and holds the third, which says so; ten starts of a debounce
// key make one run, with the last start's inputs.
func TestServeRateLimitDebounce(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	sink := newLimitSink(t)
	sink.open()
	p := startServe(t, limitsDir(t, map[string]string{
		"rated":     "rate_limit {\n  key    = input.key\n  limit  = 2\n  period = \"1h\"\n}",
		"debounced": "debounce {\n  key    = input.key\n  period = \"3s\"\n}",
	}), nil)
	body := func(key, tag string) string {
		return fmt.Sprintf(`{"inputs": {"sink": %q, "key": %q, "tag": %q}}`, sink.URL, key, tag)
	}
	r1, r2 := p.start("rated", body("r", "r1")), p.start("rated", body("r", "r2"))
	p.waitStatus(r1, "ok")
	p.waitStatus(r2, "ok")
	r3 := p.start("rated", body("r", "r3"))
	p.waitLimit(r3, `rate limit key "r"`)
	other := p.start("rated", body("s", "s1"))
	p.waitStatus(other, "ok")
	var c runReply
	if code := p.do("POST", "/v1/runs/"+r3+"/cancel", "", &c); code != 200 || c.Status != "cancelled" {
		t.Errorf("cancel of the run waiting for its turn: %d %+v", code, c)
	}

	var ids []string
	for i := 1; i <= 10; i++ {
		ids = append(ids, p.start("debounced", body("d", fmt.Sprint("d", i))))
	}
	for _, id := range ids[1:] {
		if id != ids[0] {
			t.Fatalf("debounced starts answered runs %v, want one", ids)
		}
	}
	run := p.waitStatus(ids[0], "ok")
	if run.Outputs["tag"] != "d10" {
		t.Errorf("the debounced run's tag = %q, want the last start's, d10", run.Outputs["tag"])
	}
	var list struct {
		Runs []struct {
			RunID string `json:"run_id"`
		} `json:"runs"`
	}
	p.do("GET", "/v1/runs?flow=debounced", "", &list)
	if len(list.Runs) != 1 {
		t.Errorf("runs of the debounced flow: %+v, want one", list.Runs)
	}
	sink.mu.Lock()
	defer sink.mu.Unlock()
	if n := strings.Count(strings.Join(sink.order, ","), "d"); n != 1 {
		t.Errorf("the sink saw %v: want one debounced call", sink.order)
	}
}

// TestServeConcurrencyKeyTwoServers: two servers on one PostgreSQL state
// run one run of a concurrency key of 1 at a time between them.
func TestServeConcurrencyKeyTwoServers(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	url := postgresURL(t)
	sink := newLimitSink(t)
	flows := map[string]string{"serial": "concurrency {\n  key   = input.key\n  limit = 1\n}"}
	env := []string{"FLOWCTL_STATE_URL=" + url}
	p1 := startServe(t, limitsDir(t, flows), env)
	p2 := startServe(t, limitsDir(t, flows), env)
	body := func(key, tag string) string {
		return fmt.Sprintf(`{"inputs": {"sink": %q, "key": %q, "tag": %q}}`, sink.URL, key, tag)
	}
	a1 := p1.start("serial", body("a", "a1"))
	eventually(t, "a1 under way", func() bool { return sink.underWay(map[string]int{"a": 1}) })
	a2 := p2.start("serial", body("a", "a2"))
	b1 := p2.start("serial", body("b", "b1"))
	eventually(t, "a1 and b1 under way", func() bool { return sink.underWay(map[string]int{"a": 1, "b": 1}) })
	p2.waitLimit(a2, `concurrency key "a"`)
	p1.waitLimit(a2, `concurrency key "a"`) // the state says, to either server
	sink.open()
	for _, id := range []string{a1, a2, b1} {
		p1.waitStatus(id, "ok")
	}
	sink.mu.Lock()
	defer sink.mu.Unlock()
	if sink.most["a"] != 1 {
		t.Errorf("most requests of key a at once: %d, want 1", sink.most["a"])
	}
}

// TestApplyWaitsForRateLimit: apply of a flow with a rate limit of 1 an
// hour runs once; a second apply of the key waits for its turn, listed
// queued with what it waits for, and ends cancelled when interrupted.
func TestApplyWaitsForRateLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	sink := newLimitSink(t)
	sink.open()
	dir := limitsDir(t, map[string]string{"rated": "rate_limit {\n  key    = input.key\n  limit  = 1\n  period = \"1h\"\n}"})
	args := []string{"apply", "--auto-approve", "rated.flow.hcl", "--input", "sink=" + sink.URL, "--input", "key=k"}
	if out, err := flowctl(t, dir, args...).CombinedOutput(); err != nil {
		t.Fatalf("first apply: %v\n%s", err, out)
	}
	second := flowctl(t, dir, args...)
	var out lockedBuffer
	second.Stdout, second.Stderr = &out, &out
	if err := second.Start(); err != nil {
		t.Fatal(err)
	}
	defer second.Process.Kill()
	eventually(t, "the second run queued", func() bool {
		b, _ := flowctl(t, dir, "runs", "list", "--json").Output()
		return strings.Contains(string(b), `"limit": "rate limit key \"k\""`)
	})
	second.Process.Signal(os.Interrupt)
	if err := second.Wait(); err == nil {
		t.Errorf("the interrupted apply exited 0:\n%s", out.String())
	}
	b, _ := flowctl(t, dir, "runs", "list", "--json").Output()
	if strings.Count(string(b), `"status": "ok"`) != 1 || !strings.Contains(string(b), `"status": "cancelled"`) {
		t.Errorf("runs after the interrupted apply:\n%s", b)
	}
	sink.mu.Lock()
	defer sink.mu.Unlock()
	if len(sink.order) != 1 {
		t.Errorf("the sink was called %d times, want once", len(sink.order))
	}
}

// TestDashboardWaitsForLimit: the run page of a run queued by its flow's
// rate limit says what it waits for, and offers no approval for it.
func TestDashboardWaitsForLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	pg := newPage(t)
	sink := newLimitSink(t)
	sink.open()
	p := startServe(t, limitsDir(t, map[string]string{"rated": "rate_limit {\n  key    = input.key\n  limit  = 1\n  period = \"1h\"\n}"}), nil)
	body := fmt.Sprintf(`{"inputs": {"sink": %q, "key": "k"}}`, sink.URL)
	p.waitStatus(p.start("rated", body), "ok")
	id := p.start("rated", body)
	p.waitLimit(id, `rate limit key "k"`)
	pg.do("the queued run's page",
		chromedp.Navigate(p.url+"/runs/"+id),
		pg.until(`document.querySelector('#run-waiting-for') !== null`))
	if got := pg.text("#run-waiting-for"); got != `rate limit key "k"` {
		t.Errorf("the page says the run waits for %q", got)
	}
	if n, err := chromedp.Run(pg.ctx, chromedp.Poll[string](`'n' + document.querySelectorAll('[data-approval]').length`)); err != nil || n != "n0" {
		t.Errorf("the page offers approvals for a run that waits for its turn: %s, %v", n, err)
	}
}

// TestServeConcurrencyKeyAfterKill: a server killed with a run of a
// concurrency key of 1 running and another queued behind it: the server
// that takes them up resumes the first, which keeps its place, and queues
// the second behind it again, rather than run both at once.
func TestServeConcurrencyKeyAfterKill(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	url := postgresURL(t)
	sink := newLimitSink(t)
	flows := map[string]string{"serial": "concurrency {\n  key   = input.key\n  limit = 1\n}"}
	env := []string{"FLOWCTL_STATE_URL=" + url, "FLOWCTL_STATE_LEASE=2s"}
	p1 := startServe(t, limitsDir(t, flows), env)
	body := func(tag string) string {
		return fmt.Sprintf(`{"inputs": {"sink": %q, "key": "a", "tag": %q}}`, sink.URL, tag)
	}
	a1 := p1.start("serial", body("a1"))
	eventually(t, "a1 under way", func() bool { return sink.underWay(map[string]int{"a": 1}) })
	a2 := p1.start("serial", body("a2"))
	p1.waitLimit(a2, `concurrency key "a"`)
	p1.kill()
	eventually(t, "a1's call ended with its server", func() bool { return sink.underWay(map[string]int{"a": 0}) })
	p2 := startServe(t, limitsDir(t, flows), env)
	// a1 resumed calls the sink again; a2 waits behind it.
	eventually(t, "a1 taken up", func() bool {
		sink.mu.Lock()
		defer sink.mu.Unlock()
		return len(sink.order) == 2 && sink.now["a"] == 1
	})
	p2.waitLimit(a2, `concurrency key "a"`)
	sink.open()
	p2.waitStatus(a1, "ok")
	p2.waitStatus(a2, "ok")
	sink.mu.Lock()
	defer sink.mu.Unlock()
	if sink.most["a"] != 1 || strings.Join(sink.order, ",") != "a1,a1,a2" {
		t.Errorf("calls %v, most at once %d: want a1 (killed), a1 (taken up), then a2, one at a time", sink.order, sink.most["a"])
	}
}
