package state

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer that a logger writes while a test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// TestServeRetention: serve --retention prunes, at once and then every
// interval, the finished runs older than the retention, and logs what it
// freed; newer runs and running ones stay.
func TestServeRetention(t *testing.T) {
	st, err := Open(filepath.Join(t.TempDir(), ".flowctl"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	old := time.Now().Add(-40 * 24 * time.Hour)
	for _, r := range []struct {
		id, status string
		started    time.Time
	}{{"old", "ok", old}, {"oldrunning", "running", old}, {"new", "ok", time.Now()}} {
		if err := st.CreateRun(&Run{ID: r.id, Flow: "f", StartedAt: r.started}); err != nil {
			t.Fatal(err)
		}
		st.RecordStep(&StepResult{RunID: r.id, Step: "a", Status: "ok", Log: "hello\n"})
		if r.status != "running" {
			if err := st.FinishRun(&Run{ID: r.id, Status: r.status}); err != nil {
				t.Fatal(err)
			}
		}
	}
	var buf lockedBuffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { Retain(ctx, st, 30*24*time.Hour, time.Hour, log); close(done) }()
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(buf.String(), "runs pruned") {
		if time.Now().After(deadline) {
			t.Fatalf("nothing pruned within a minute: %q", buf.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-done
	if got := buf.String(); !strings.Contains(got, "runs=1 step_results=1 ") || !strings.Contains(got, "log_bytes=6 ") {
		t.Errorf("the log of the pruning: %q", got)
	}
	for id, want := range map[string]bool{"old": false, "oldrunning": true, "new": true} {
		if _, err := st.Run(id); (err == nil) != want {
			t.Errorf("run %s: %v; kept: want %v", id, err, want)
		}
	}
}
