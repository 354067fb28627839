// Command serve measures the throughput of flowctl serve: runs of a
// three-step value flow finished per second. For each setting it starts
// the servers on loopback ports, sends -runs runs through the API from
// -clients clients per server (each starts a run, follows its event
// stream to run_finished and starts the next), and prints the runs
// finished per second (from the first request to the last run_finished)
// and the start latency (from the POST to the run's run_started event):
// p50, p99, max. A start refused with 503 (queue_full, or
// state_unavailable) is tried again after its Retry-After, and counted.
// Each figure is the median of -repeat measurements, each from an empty
// state.
//
// The settings: SQLite (a state directory) with 1 server, and, with
// -state-url (default: $FLOWCTL_TEST_STATE_URL, which .ci/with-postgres
// sets), PostgreSQL with 1 server and with 2 servers on that one state,
// the clients spread over both. Each PostgreSQL measurement uses a schema
// of its own (bench_SETTING_N, dropped and made again), as the state
// tests do.
//
//	go run ./bench/serve [-runs 3000] [-clients 128] [-repeat 3]
//	.ci/with-postgres go run ./bench/serve
package main

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/flowctl/flowctl/bench/benchutil"
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver
)

var (
	runs     = flag.Int("runs", 3000, "runs per measurement")
	clients  = flag.Int("clients", 128, "clients per server, each with one run under way at a time")
	repeat   = flag.Int("repeat", 3, "measurements per setting; the median is reported")
	stateURL = flag.String("state-url", os.Getenv("FLOWCTL_TEST_STATE_URL"), "a postgres:// URL of a loopback database to measure PostgreSQL on (in schemas bench_*, made empty)")
	only     = flag.String("only", "", "measure only these settings, comma-separated: sqlite, pg1, pg2")
	timeout  = flag.Duration("timeout", 5*time.Minute, "give up a measurement after this long")
)

const flow = `flow "bench" {}

input "n" {
  type = number
}

step "double" {
  use   = "value"
  value = input.n * 2
}

step "text" {
  use   = "value"
  value = "n is ${step.double.value}"
}

step "upper" {
  use   = "value"
  value = upper(step.text.value)
}

output "text" {
  value = step.upper.value
}
`

// A result is one measurement.
type result struct {
	perSec    float64
	elapsed   time.Duration
	refused   int64
	latencies []time.Duration
}

func main() {
	flag.Parse()
	dir, bin, done := benchutil.Start("serve")
	defer done()
	flows := filepath.Join(dir, "flows")
	benchutil.WriteFile(filepath.Join(flows, "bench.flow.hcl"), []byte(flow))
	if *stateURL != "" {
		checkLoopback(*stateURL)
	}
	type setting struct {
		name    string
		label   string
		servers int
		pg      bool
	}
	settings := []setting{
		{"sqlite", "SQLite, 1 server", 1, false},
		{"pg1", "PostgreSQL, 1 server", 1, true},
		{"pg2", "PostgreSQL, 2 servers", 2, true},
	}
	fmt.Printf("%d runs of a 3-step value flow, %d clients per server, median of %d\n", *runs, *clients, *repeat)
	for _, s := range settings {
		if *only != "" && !slices.Contains(strings.Split(*only, ","), s.name) {
			continue
		}
		if s.pg && *stateURL == "" {
			fmt.Printf("%-24s skipped: no -state-url (run under .ci/with-postgres)\n", s.label)
			continue
		}
		var rs []result
		for i := range *repeat {
			state := filepath.Join(dir, fmt.Sprintf("state-%s-%d", s.name, i))
			if s.pg {
				state = pgSchema(*stateURL, fmt.Sprintf("bench_%s_%d", s.name, i))
			}
			r := measure(bin, dir, flows, state, s.servers)
			fmt.Printf("  %-22s %7.0f runs finished/s (%d in %.2f s, %d starts refused with 503)\n", s.label, r.perSec, *runs, r.elapsed.Seconds(), r.refused)
			rs = append(rs, r)
		}
		slices.SortFunc(rs, func(a, b result) int { return int(a.perSec - b.perSec) })
		m := rs[len(rs)/2]
		pct := func(p float64) time.Duration {
			return m.latencies[min(len(m.latencies)-1, int(p*float64(len(m.latencies))))]
		}
		fmt.Printf("%-24s %7.0f runs finished/s (median; %.0f–%.0f); start latency p50 %.1f ms, p99 %.1f ms, max %.1f ms\n",
			s.label, m.perSec, rs[0].perSec, rs[len(rs)-1].perSec, ms(pct(0.5)), ms(pct(0.99)), ms(m.latencies[len(m.latencies)-1]))
	}
}

// checkLoopback refuses a state URL that is not on a loopback address:
// the bench sends traffic only there.
func checkLoopback(raw string) {
	u, err := url.Parse(raw)
	benchutil.Check(err)
	host := u.Hostname()
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		benchutil.Check(fmt.Errorf("-state-url %s: the bench uses only a database on a loopback address", raw))
	}
}

// pgSchema makes the schema name, empty, in the database of base and
// returns base with the schema as its search path: each measurement starts
// from an empty state.
func pgSchema(base, name string) string {
	db, err := sql.Open("pgx", base)
	benchutil.Check(err)
	defer db.Close()
	_, err = db.Exec(`DROP SCHEMA IF EXISTS ` + name + ` CASCADE; CREATE SCHEMA ` + name)
	benchutil.Check(err)
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	return base + sep + "search_path=" + name
}

// A server is one flowctl serve process.
type server struct {
	cmd  *exec.Cmd
	url  string
	logf *os.File
}

// startServer starts flowctl serve on a free loopback port; its log goes to
// a file, read until the line that names its address (a pipe nobody reads
// would block the server once full).
func startServer(bin, dir, flows, state string, n int) *server {
	logPath := filepath.Join(dir, fmt.Sprintf("serve-%d.log", n))
	logf, err := os.Create(logPath)
	benchutil.Check(err)
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--state", state, "--max-queue", "100000", flows)
	cmd.Stdout, cmd.Stderr = logf, logf
	benchutil.Check(cmd.Start())
	addr := regexp.MustCompile(`on (http://[^\s"]+)`)
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		b, _ := os.ReadFile(logPath)
		if m := addr.FindSubmatch(b); m != nil {
			return &server{cmd: cmd, url: string(m[1]), logf: logf}
		}
		if cmd.ProcessState != nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Kill()
	b, _ := os.ReadFile(logPath)
	benchutil.Check(fmt.Errorf("serve did not start: %s", b))
	return nil
}

// stop stops the server as an operator does (SIGINT) and waits for it.
func (s *server) stop() {
	s.cmd.Process.Signal(os.Interrupt)
	t := time.AfterFunc(30*time.Second, func() { s.cmd.Process.Kill() })
	s.cmd.Wait()
	t.Stop()
	s.logf.Close()
}

// measure starts n servers on state and sends them *runs runs.
func measure(bin, dir, flows, state string, n int) result {
	var servers []*server
	for i := range n {
		servers = append(servers, startServer(bin, dir, flows, state, i))
	}
	defer func() {
		for _, s := range servers {
			s.stop()
		}
	}()
	// One connection per client kept open: without it the default
	// transport keeps 2 idle connections per host and closes the others,
	// and thousands of runs use up the ephemeral ports in TIME_WAIT.
	client := &http.Client{Transport: &http.Transport{
		MaxIdleConnsPerHost: 2 * *clients,
		MaxIdleConns:        2 * *clients * n,
		DisableCompression:  true,
	}}
	defer client.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	latencies := make([]time.Duration, *runs)
	var next, refused atomic.Int64
	var wg sync.WaitGroup
	var errOnce sync.Once
	var firstErr error
	start := time.Now()
	for c := range *clients * n {
		srv := servers[c%n]
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= int64(*runs) || ctx.Err() != nil {
					return
				}
				lat, r, err := run(ctx, client, srv.url, int(i))
				refused.Add(r)
				if err != nil {
					errOnce.Do(func() { firstErr = err; cancel() })
					return
				}
				latencies[i] = lat
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	if firstErr != nil {
		benchutil.Check(fmt.Errorf("%s: %w", state, firstErr))
	}
	slices.Sort(latencies)
	return result{perSec: float64(*runs) / elapsed.Seconds(), elapsed: elapsed, refused: refused.Load(), latencies: latencies}
}

// run starts run i and follows its events to run_finished; it returns the
// start latency and how many starts were refused with 503 before it was
// accepted.
func run(ctx context.Context, client *http.Client, base string, i int) (time.Duration, int64, error) {
	t0 := time.Now()
	var refused int64
	var id string
	for {
		req, err := http.NewRequestWithContext(ctx, "POST", base+"/v1/flows/bench/runs", strings.NewReader(fmt.Sprintf(`{"inputs": {"n": %d}}`, i)))
		if err != nil {
			return 0, refused, err
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			return 0, refused, err
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return 0, refused, err
		}
		if resp.StatusCode == http.StatusServiceUnavailable {
			refused++
			wait := time.Second
			if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil {
				wait = time.Duration(s) * time.Second
			}
			select {
			case <-time.After(wait):
				continue
			case <-ctx.Done():
				return 0, refused, ctx.Err()
			}
		}
		if resp.StatusCode != http.StatusAccepted {
			return 0, refused, fmt.Errorf("starting run %d: %s: %s", i, resp.Status, body)
		}
		var r struct {
			RunID string `json:"run_id"`
		}
		if err := json.Unmarshal(body, &r); err != nil || r.RunID == "" {
			return 0, refused, fmt.Errorf("starting run %d: no run_id in %s", i, body)
		}
		id = r.RunID
		break
	}
	req, err := http.NewRequestWithContext(ctx, "GET", base+"/v1/runs/"+id+"/events", nil)
	if err != nil {
		return 0, refused, err
	}
	ev, err := client.Do(req)
	if err != nil {
		return 0, refused, err
	}
	defer ev.Body.Close()
	if ev.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(ev.Body)
		return 0, refused, fmt.Errorf("events of run %s: %s: %s", id, ev.Status, b)
	}
	var lat time.Duration
	lines := bufio.NewScanner(ev.Body)
	lines.Buffer(make([]byte, 64<<10), 1<<20)
	for lines.Scan() {
		switch lines.Text() {
		case "event: run_started":
			lat = time.Since(t0)
		case "event: run_finished":
			// The server ends the stream after it; reading to the end
			// lets the connection be used again.
			io.Copy(io.Discard, ev.Body)
			return lat, refused, nil
		}
	}
	if err := lines.Err(); err != nil && !errors.Is(err, io.EOF) {
		return 0, refused, fmt.Errorf("events of run %s: %w", id, err)
	}
	return 0, refused, fmt.Errorf("run %s: the stream ended without run_finished", id)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
