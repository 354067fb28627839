package state

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestRunPage: for every filter, paging with any page size lists exactly
// the runs the filter chooses, newest first (ties by ID), each once.
func TestRunPage(t *testing.T) {
	s := openStore(t)
	base := time.Unix(1_700_000_000, 0)
	var all []*Run
	flows, nss, statuses := []string{"a", "b"}, []string{"default", "team"}, []string{"ok", "failed", "waiting"}
	for i := range 60 {
		r := &Run{
			ID: fmt.Sprintf("r%03d", i), Flow: flows[i%2], Namespace: nss[i/2%2], Status: statuses[i%3],
			StartedAt: base.Add(time.Duration(i/4) * time.Second), // four runs a second: ties by ID
		}
		if err := s.CreateRun(r); err != nil {
			t.Fatal(err)
		}
		all = append(all, r)
	}
	flush(t, s)
	ctx := context.Background()
	for _, f := range []RunFilter{
		{}, {Flow: "a"}, {Namespace: "team"}, {Status: "waiting"}, {Flow: "b", Status: "ok"},
		{Flow: "a", Namespace: "team"}, {Namespace: "default", Status: "failed"},
		{Flow: "b", Namespace: "team", Status: "waiting"}, {Flow: "none"},
	} {
		var want []string
		for _, r := range slices.Backward(all) {
			if (f.Flow == "" || r.Flow == f.Flow) && (f.Namespace == "" || r.Namespace == f.Namespace) && (f.Status == "" || r.Status == f.Status) {
				want = append(want, r.ID)
			}
		}
		for _, limit := range []int{1, 3, 7, 100} {
			var got []string
			var after *RunKey
			for pages := 0; ; pages++ {
				if pages > len(all) {
					t.Fatalf("%+v limit %d: no end", f, limit)
				}
				runs, next, err := s.RunPage(ctx, f, after, limit)
				if err != nil {
					t.Fatal(err)
				}
				if len(runs) > limit || next != nil && len(runs) != limit {
					t.Fatalf("%+v limit %d: a page of %d, next %v", f, limit, len(runs), next)
				}
				for _, r := range runs {
					got = append(got, r.ID)
					if r.StartedAt.IsZero() || r.Flow == "" || r.Status == "" || r.Namespace == "" {
						t.Errorf("%s: %+v", r.ID, r)
					}
				}
				if next == nil {
					break
				}
				after = next
			}
			if !slices.Equal(got, want) {
				t.Errorf("%+v limit %d:\n got %v\nwant %v", f, limit, got, want)
			}
		}
	}
}

// TestRunPageIndexes: every filter's query walks an index in the list's
// order: SQLite sorts nothing and scans no table; PostgreSQL, told to
// avoid sequential scans and sorts where it can, has neither in its plan.
func TestRunPageIndexes(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	conn, err := s.db.DB.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_, pg := s.db.b.(postgresBackend)
	if pg {
		if _, err := conn.ExecContext(ctx, `SET enable_seqscan = off`); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.ExecContext(ctx, `SET enable_sort = off`); err != nil {
			t.Fatal(err)
		}
	}
	after := &RunKey{StartedAt: time.Now(), ID: "x"}
	for _, f := range []string{"", "flow", "namespace", "status", "flow status", "flow namespace", "namespace status", "flow namespace status"} {
		for _, key := range []*RunKey{nil, after} {
			var where []string
			var args []any
			for _, c := range strings.Fields(f) {
				where = append(where, c+" = ?")
				args = append(args, "v")
			}
			if key != nil {
				where = append(where, "(started_at, id) < (?, ?)")
				args = append(args, key.StartedAt.UnixNano(), key.ID)
			}
			q := `SELECT ` + runSummaryColumns + ` FROM runs`
			if len(where) > 0 {
				q += ` WHERE ` + strings.Join(where, " AND ")
			}
			q += ` ORDER BY started_at DESC, id DESC LIMIT 51`
			explain := `EXPLAIN QUERY PLAN `
			if pg {
				explain = `EXPLAIN `
			}
			rows, err := conn.QueryContext(ctx, s.db.b.bind(explain+q), args...)
			if err != nil {
				t.Fatal(err)
			}
			var plan []string
			cols, _ := rows.Columns()
			for rows.Next() {
				vals := make([]any, len(cols))
				ptrs := make([]any, len(cols))
				for i := range vals {
					ptrs[i] = &vals[i]
				}
				if err := rows.Scan(ptrs...); err != nil {
					t.Fatal(err)
				}
				plan = append(plan, fmt.Sprint(vals[len(vals)-1]))
			}
			rows.Close()
			text := strings.Join(plan, "\n")
			bad := strings.Contains(text, "TEMP B-TREE") || strings.Contains(text, "SCAN runs\n") || strings.HasSuffix(text, "SCAN runs") ||
				strings.Contains(text, "Seq Scan") || strings.Contains(text, "Sort")
			wantIndex := "runs_page"
			if f != "" {
				wantIndex += "_" + strings.ReplaceAll(f, " ", "_")
			}
			if bad || !strings.Contains(text, wantIndex+" ") && !strings.Contains(text, wantIndex+"\n") && !strings.HasSuffix(text, wantIndex) {
				t.Errorf("filter %q (after %v): the plan does not walk %s:\n%s", f, key != nil, wantIndex, text)
			}
		}
	}
}

// TestOpenApprovals: the approvals that wait, of the runs asked for only.
func TestOpenApprovals(t *testing.T) {
	s := openStore(t)
	now := time.Now()
	for _, id := range []string{"r1", "r2", "r3"} {
		createRun(t, s, id, "f", now)
		for _, step := range []string{"a", "b"} {
			if err := s.RequestApproval(&Approval{RunID: id, Step: step, Message: "ok?", RequestedAt: now}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := s.DecideApproval("r1", "a", "", true, "", "ana"); err != nil {
		t.Fatal(err)
	}
	if err := s.CloseApproval("r2", "b", ""); err != nil {
		t.Fatal(err)
	}
	got, err := s.OpenApprovals([]string{"r1", "r2", "nope"})
	if err != nil {
		t.Fatal(err)
	}
	steps := func(as []*Approval) (out []string) {
		for _, a := range as {
			out = append(out, a.Step)
		}
		return out
	}
	if len(got) != 2 || !slices.Equal(steps(got["r1"]), []string{"b"}) || !slices.Equal(steps(got["r2"]), []string{"a"}) {
		t.Errorf("open approvals: %v %v (%d runs)", steps(got["r1"]), steps(got["r2"]), len(got))
	}
	if got, err := s.OpenApprovals(nil); err != nil || len(got) != 0 {
		t.Errorf("of no run: %v %v", got, err)
	}
}

func TestLastEventSeq(t *testing.T) {
	s := openStore(t)
	createRun(t, s, "r1", "f", time.Now())
	if n, err := s.LastEventSeq("r1"); n != 0 || err != nil {
		t.Fatalf("before: %d %v", n, err)
	}
	for i := int64(1); i <= 3; i++ {
		s.RecordEvent(Event{RunID: "r1", Seq: i, Type: "x", Data: []byte(`{}`)})
	}
	flush(t, s)
	if n, err := s.LastEventSeq("r1"); n != 3 || err != nil {
		t.Errorf("after: %d %v", n, err)
	}
}

// TestIdempotencyKeys: a key is scoped to its flow and namespace, keeps
// the run and request it was first claimed with until it expires, and of
// several processes claiming one key at once exactly one gets it.
func TestIdempotencyKeys(t *testing.T) {
	s := openStore(t)
	now := time.Now()
	expiry := now.Add(-24 * time.Hour)
	k := IdempotencyKey{Flow: "f", Key: "k1", Request: "req1", RunID: "run1"}
	if got, err := s.ClaimIdempotencyKey(k, expiry); got != nil || err != nil {
		t.Fatalf("first claim: %+v %v", got, err)
	}
	again := k
	again.RunID, again.Request = "run2", "req2"
	got, err := s.ClaimIdempotencyKey(again, expiry)
	if err != nil || got == nil || got.RunID != "run1" || got.Request != "req1" || got.Namespace != DefaultNamespace {
		t.Fatalf("second claim: %+v %v", got, err)
	}
	for _, other := range []IdempotencyKey{
		{Flow: "g", Key: "k1", Request: "req1", RunID: "run3"},
		{Flow: "f", Namespace: "team", Key: "k1", Request: "req1", RunID: "run4"},
	} {
		if got, err := s.ClaimIdempotencyKey(other, expiry); got != nil || err != nil {
			t.Errorf("%s/%s: %+v %v", other.Flow, other.Namespace, got, err)
		}
	}
	// Expired: claimed anew.
	later := again
	later.RunID = "run5"
	if got, err := s.ClaimIdempotencyKey(later, now.Add(time.Second)); got != nil || err != nil {
		t.Errorf("after expiry: %+v %v", got, err)
	}
	if got, _ := s.ClaimIdempotencyKey(k, expiry); got == nil || got.RunID != "run5" {
		t.Errorf("the replaced key: %+v", got)
	}
	// Pruning deletes what expired only.
	old := IdempotencyKey{Flow: "f", Key: "old", Request: "r", RunID: "run6", CreatedAt: now.Add(-48 * time.Hour)}
	if got, err := s.ClaimIdempotencyKey(old, expiry); got != nil || err != nil {
		t.Fatalf("an old key: %+v %v", got, err)
	}
	if n, err := s.PruneIdempotencyKeys(context.Background(), expiry); n != 1 || err != nil {
		t.Errorf("pruned %d: %v", n, err)
	}
	// At once.
	var wg sync.WaitGroup
	var mu sync.Mutex
	winners := 0
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := s.ClaimIdempotencyKey(IdempotencyKey{Flow: "f", Key: "race", Request: "r", RunID: fmt.Sprint("run-", i)}, expiry)
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if got == nil {
				winners++
			}
		}()
	}
	wg.Wait()
	if winners != 1 {
		t.Errorf("%d claims of one key won", winners)
	}
}

// TestCancelWaiting: of a decision and a cancellation racing on a waiting
// run, exactly one wins, on every run.
func TestCancelWaiting(t *testing.T) {
	s := openStore(t)
	now := time.Now()
	const runs = 30
	for i := range runs {
		id := fmt.Sprint("w", i)
		createRun(t, s, id, "f", now)
		if err := s.RequestApproval(&Approval{RunID: id, Step: "check", Message: "ok?", RequestedAt: now}); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	decided, cancelled := make([]error, runs), make([]error, runs)
	for i := range runs {
		id := fmt.Sprint("w", i)
		wg.Add(2)
		go func() { defer wg.Done(); _, decided[i] = s.DecideApproval(id, "check", "", true, "", "ana") }()
		go func() { defer wg.Done(); cancelled[i] = s.CancelWaiting(id) }()
	}
	wg.Wait()
	for i := range runs {
		d, c := decided[i], cancelled[i]
		switch {
		case d == nil && errors.Is(c, ErrDecided), c == nil && errors.Is(d, ErrNotWaiting):
		default:
			t.Errorf("run %d: decision %v, cancellation %v", i, d, c)
		}
		a, err := s.Approval(fmt.Sprint("w", i), "check", "")
		if err != nil || (d == nil) != a.Decided() || (c == nil) != a.Closed {
			t.Errorf("run %d: the approval %+v %v", i, a, err)
		}
	}
	if err := s.CancelWaiting("none"); err != nil {
		t.Errorf("a run without approvals: %v", err)
	}
}
