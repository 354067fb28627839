package state

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The crash tests re-execute the test binary as a child process in "writer
// mode" (TestWriterChild, switched on by the environment variables below),
// which records rows in a loop and reports on stdout each time a Flush has
// returned.
const (
	childDirEnv     = "FLOWCTL_STATE_TEST_CHILD_DIR"
	childRunEnv     = "FLOWCTL_STATE_TEST_CHILD_RUN"
	childBatchesEnv = "FLOWCTL_STATE_TEST_CHILD_BATCHES" // 0 or unset: until killed
	childBatchSize  = 100
)

// TestWriterChild is the child process of TestKilledWriter and
// TestConcurrentProcesses; run directly, it skips.
func TestWriterChild(t *testing.T) {
	dir := os.Getenv(childDirEnv)
	if dir == "" {
		t.Skip("the writer child of TestKilledWriter")
	}
	batches, _ := strconv.Atoi(os.Getenv(childBatchesEnv))
	if err := writerChild(dir, os.Getenv(childRunEnv), batches, os.Stdout); err != nil {
		fmt.Fprintln(os.Stdout, "error:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// writerChild records batches of childBatchSize step results and cache
// entries, and a memory value, for run runID, and prints "flushed N" once
// the first N rows of each kind are committed.
func writerChild(dir, runID string, batches int, out io.Writer) error {
	s, err := Open(dir)
	if err != nil {
		return err
	}
	if err := s.CreateRun(&Run{ID: runID, Flow: "crash"}); err != nil {
		return err
	}
	fmt.Fprintln(out, "ready")
	outputs := json.RawMessage(`{"text":"` + strings.Repeat("lorem ipsum ", 20) + `"}`)
	for b := 0; batches == 0 || b < batches; b++ {
		for i := b * childBatchSize; i < (b+1)*childBatchSize; i++ {
			s.RecordStep(&StepResult{
				RunID: runID, Step: "s", Instance: strconv.Itoa(i), Status: "ok",
				Attempts: i, StartedAt: time.Now(), FinishedAt: time.Now(), Outputs: outputs,
			})
			s.CachePut(runID+"/"+strconv.Itoa(i), "crash", "s", outputs)
		}
		n := (b + 1) * childBatchSize
		if err := s.SetMemory("crash", runID, map[string]json.RawMessage{"count": json.RawMessage(strconv.Itoa(n))}); err != nil {
			return err
		}
		if err := s.Flush(); err != nil {
			return err
		}
		fmt.Fprintln(out, "flushed", n)
	}
	if err := s.FinishRun(&Run{ID: runID, Status: "ok"}); err != nil {
		return err
	}
	return s.Close()
}

// child is a running writer child.
type child struct {
	cmd     *exec.Cmd
	lines   chan string // its stdout
	flushed int         // the last count it reported flushed
}

func startChild(t *testing.T, dir, runID string, batches int) *child {
	t.Helper()
	switch runtime.GOOS {
	case "js", "wasip1", "ios", "android":
		t.Skipf("cannot re-execute the test binary on %s", runtime.GOOS)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestWriterChild$")
	cmd.Env = append(os.Environ(), childDirEnv+"="+dir, childRunEnv+"="+runID, childBatchesEnv+"="+strconv.Itoa(batches))
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, lines: make(chan string, 1024)}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
	}()
	return c
}

// handle notes what a line of the child's output says.
func (c *child) handle(t *testing.T, line string) {
	t.Helper()
	switch {
	case line == "ready":
	case strings.HasPrefix(line, "flushed "):
		n, err := strconv.Atoi(strings.TrimPrefix(line, "flushed "))
		if err != nil || n <= c.flushed {
			t.Fatalf("child: bad line %q", line)
		}
		c.flushed = n
	case strings.HasPrefix(line, "error:"):
		t.Errorf("child: %s", line)
	}
}

// waitFor reads the child's output until it prints want.
func (c *child) waitFor(t *testing.T, want string) {
	t.Helper()
	timeout := time.After(time.Minute)
	for {
		select {
		case line, ok := <-c.lines:
			if !ok {
				t.Fatalf("the child ended before printing %q", want)
			}
			c.handle(t, line)
			if line == want {
				return
			}
		case <-timeout:
			c.cmd.Process.Kill()
			t.Fatalf("the child did not print %q within a minute", want)
		}
	}
}

// finish reads the rest of the child's output and waits for it to end.
func (c *child) finish(t *testing.T) error {
	t.Helper()
	for line := range c.lines {
		c.handle(t, line)
	}
	return c.cmd.Wait()
}

// TestKilledWriter kills a writing process with SIGKILL at random moments
// and checks that the database it leaves opens, passes SQLite's integrity
// check, and holds every row the process saw flushed.
func TestKilledWriter(t *testing.T) {
	dir := t.TempDir()
	total := 0
	for i := range 6 {
		runID := NewRunID()
		c := startChild(t, dir, runID, 0)
		var delay time.Duration
		if i == 0 {
			// Kill it while it may still be opening (or creating) the
			// database.
			delay = time.Duration(rand.IntN(10)) * time.Millisecond
			time.Sleep(delay)
		} else {
			c.waitFor(t, "ready")
			delay = time.Duration(rand.IntN(150)) * time.Millisecond
			time.Sleep(delay)
		}
		if err := c.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		if err := c.finish(t); err == nil {
			t.Fatalf("the child exited on its own before being killed")
		}
		t.Logf("killed after %v, %d rows reported flushed", delay, c.flushed)
		total += c.flushed
		checkAfterCrash(t, dir, runID, c.flushed)
	}
	if total == 0 {
		t.Error("no child flushed anything before being killed: the test checked nothing")
	}
}

// checkAfterCrash opens the database a killed child left and checks it.
func checkAfterCrash(t *testing.T, dir, runID string, flushed int) {
	t.Helper()
	s, err := Open(dir)
	if err != nil {
		t.Fatalf("opening the database after the kill: %v", err)
	}
	defer func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	}()
	var check string
	if err := s.db.QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check = %q, %v", check, err)
	}
	if flushed == 0 {
		if _, err := s.Runs("", 0); err != nil {
			t.Fatal(err)
		}
		return
	}
	if _, err := s.Run(runID); err != nil {
		t.Fatal(err)
	}
	steps, err := s.Steps(runID)
	if err != nil {
		t.Fatal(err)
	}
	present := make([]bool, len(steps)+flushed)
	for _, st := range steps {
		if !json.Valid(st.Outputs) {
			t.Fatalf("step %s: outputs %q are not JSON", st.Instance, st.Outputs)
		}
		if st.Attempts < len(present) {
			present[st.Attempts] = true
		}
	}
	for i := range flushed {
		if !present[i] {
			t.Fatalf("step result %d of %d flushed is missing", i, flushed)
		}
		v, ok, err := s.CacheGet(runID + "/" + strconv.Itoa(i))
		if err != nil || !ok || !json.Valid(v) {
			t.Fatalf("cache entry %d of %d flushed: %s, %v, %v", i, flushed, v, ok, err)
		}
	}
	m, err := s.Memory("crash", runID)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := strconv.Atoi(string(m["count"])); n < flushed {
		t.Fatalf("memory count = %d, want at least %d", n, flushed)
	}
}

// TestConcurrentProcesses runs several writing processes on one new
// database at once: they create it, switch it to WAL, migrate it and write
// to it, taking turns.
func TestConcurrentProcesses(t *testing.T) {
	dir := t.TempDir()
	const batches = 10
	var ids []string
	var children []*child
	for range 4 {
		id := NewRunID()
		ids = append(ids, id)
		children = append(children, startChild(t, dir, id, batches))
	}
	for i, c := range children {
		if err := c.finish(t); err != nil {
			t.Fatalf("child %d: %v", i, err)
		}
		if c.flushed != batches*childBatchSize {
			t.Fatalf("child %d flushed %d rows, want %d", i, c.flushed, batches*childBatchSize)
		}
	}
	s := openSQLiteIn(t, dir)
	var check string
	if err := s.db.QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check = %q, %v", check, err)
	}
	for _, id := range ids {
		r, err := s.Run(id)
		if err != nil || r.Status != "ok" {
			t.Fatalf("Run(%s) = %+v, %v", id, r, err)
		}
		steps, err := s.Steps(id)
		if err != nil || len(steps) != batches*childBatchSize {
			t.Fatalf("Steps(%s) = %d results, %v; want %d", id, len(steps), err, batches*childBatchSize)
		}
	}
}
