package server

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/flowctl/flowctl/runtime/state/pgtest"
)

// BenchmarkRunsPage measures GET /v1/runs?limit=50 through a real server
// (HTTP on loopback) over a state of 50,000 and 1,000,000 runs, on SQLite,
// or on PostgreSQL under .ci/with-postgres: the first page, a page from
// the middle of the history (by its cursor), and pages filtered by flow,
// by status, and by flow, namespace and status together. A page costs
// the page (issue 39 §2): the figures must not grow with the history.
// FLOWCTL_BENCH_RUNS=N,M chooses the sizes.
//
//	go test ./server -run '^$' -bench RunsPage -benchtime 200x
//	.ci/with-postgres go test ./server -run '^$' -bench RunsPage -benchtime 200x
func BenchmarkRunsPage(b *testing.B) {
	sizes := []int{50_000, 1_000_000}
	if v := os.Getenv("FLOWCTL_BENCH_RUNS"); v != "" {
		sizes = nil
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(f)
			if err != nil {
				b.Fatalf("FLOWCTL_BENCH_RUNS: %v", err)
			}
			sizes = append(sizes, n)
		}
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("runs=%d", n), func(b *testing.B) {
			start := time.Now()
			st := benchState(b, n)
			b.Logf("%d runs written in %s", n, time.Since(start).Round(time.Millisecond))
			srv := New(Options{Dir: b.TempDir(), Store: st, Logger: slog.New(slog.DiscardHandler), Executors: &blocks.Executors{}})
			hs := httptest.NewServer(srv)
			b.Cleanup(func() { hs.Close(); srv.Close() })

			// The middle of the history: the cursor of the run there.
			middle := runCursor{key: state.RunKey{StartedAt: benchStart.Add(time.Duration(n/2) * time.Second), ID: benchRunID(n / 2)}}
			for _, c := range []struct{ name, query string }{
				{"first", ""},
				{"middle", "cursor=" + middle.String()},
				{"flow", "flow=flow3"},
				{"status", "status=failed"},
				{"flow+namespace+status", "flow=flow3&namespace=team&status=failed"},
				{"middle+flow", "flow=flow3&cursor=" + middle.String()},
			} {
				b.Run(c.name, func(b *testing.B) {
					u := hs.URL + "/v1/runs?limit=50&" + c.query
					var page struct {
						Runs []json.RawMessage `json:"runs"`
					}
					get := func() {
						resp, err := http.Get(u)
						if err != nil {
							b.Fatal(err)
						}
						page.Runs = nil
						err = json.NewDecoder(resp.Body).Decode(&page)
						resp.Body.Close()
						if err != nil || resp.StatusCode != 200 || len(page.Runs) != 50 {
							b.Fatalf("GET %s: %d, %d runs, %v", u, resp.StatusCode, len(page.Runs), err)
						}
					}
					get() // the query prepared, its pages read once
					for b.Loop() {
						get()
					}
				})
			}
		})
	}
}

var benchStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func benchRunID(i int) string { return fmt.Sprintf("run%08d", i) }

// benchState is a state of n runs (benchRun). On SQLite they are written
// through the store (CreateRun, batched by its writer); on PostgreSQL,
// whose writer takes a round trip a statement (1,000,000 would take
// hours), by one INSERT … SELECT over generate_series into the schema the
// store made, with the same values.
func benchState(b *testing.B, n int) *state.Store {
	name := "srv_bench_runs_" + strconv.Itoa(n) + "_" + newRequestID()
	url := pgtest.URL(b, name)
	if url == "" {
		st := openState(b, filepath.Join(b.TempDir(), ".flowctl"))
		fillRuns(b, st, n)
		return st
	}
	st, err := state.OpenURL(url)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close(); dropSchema(b, name) })
	db, err := sql.Open("pgx", url)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`
INSERT INTO runs (id, flow, namespace, flow_file, source_hash, status, started_at, finished_at, error)
SELECT 'run' || lpad(i::text, 8, '0'), 'flow' || (i % 10), (ARRAY['default', 'team'])[(i / 10) % 2 + 1], '', '',
	CASE WHEN i % 7 = 0 THEN 'failed' ELSE 'ok' END, $1 + i * 1000000000::bigint, $1 + (i + 1) * 1000000000::bigint, ''
FROM generate_series(0, $2 - 1) AS i`, benchStart.UnixNano(), n); err != nil {
		b.Fatal(err)
	}
	if _, err := db.Exec(`ANALYZE runs`); err != nil {
		b.Fatal(err)
	}
	return st
}

// fillRuns writes n finished runs, one a second from benchStart: ten
// flows, two namespaces, a run in seven failed, the rest ok; from many
// writers at once, so that the state's writer batches them.
func fillRuns(b *testing.B, st *state.Store, n int) {
	b.Helper()
	var wg sync.WaitGroup
	const writers = 256
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			for i := w; i < n; i += writers {
				at := benchStart.Add(time.Duration(i) * time.Second)
				status := "ok"
				if i%7 == 0 {
					status = "failed"
				}
				r := &state.Run{ID: benchRunID(i), Flow: "flow" + strconv.Itoa(i%10), Namespace: []string{"default", "team"}[i/10%2],
					Status: status, StartedAt: at, FinishedAt: at.Add(time.Second)}
				if err := st.CreateRun(r); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
	st.Flush()
}
