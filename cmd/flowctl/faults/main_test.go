package faults

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/flowctl/flowctl/blocks/sandbox/isolate"
	"github.com/flowctl/flowctl/cmd/flowctl/cli"
)

// TestMain makes the test binary flowctl itself when FLOWCTL_TEST_MAIN is
// set (the tests run it so), and a sandbox worker when asked.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == isolate.WorkerArg {
		os.Exit(isolate.Main(os.Args[2:]))
	}
	if os.Getenv("FLOWCTL_TEST_MAIN") == "1" {
		os.Exit(cli.Main())
	}
	os.Exit(m.Run())
}

// syncBuffer is a buffer a process writes to while a test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A proc is a flowctl process of a test: its output is kept, and it is
// killed when the test ends if it has not exited.
type proc struct {
	cmd  *exec.Cmd
	out  syncBuffer
	done chan struct{} // closed when it exited, with err
	err  error
}

// start starts flowctl with args in dir, env added to the test's.
func start(t *testing.T, dir string, env []string, args ...string) *proc {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p := &proc{cmd: exec.Command(exe, args...), done: make(chan struct{})}
	p.cmd.Dir = dir
	p.cmd.Env = append(append(os.Environ(), "FLOWCTL_TEST_MAIN=1", "NO_COLOR=1"), env...)
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.done
	})
	return p
}

func (p *proc) name() string { return "flowctl " + strings.Join(p.cmd.Args[1:], " ") }

// wait waits for the process to exit, and fails the test unless it
// exits 0.
func (p *proc) wait(t *testing.T) {
	t.Helper()
	select {
	case <-p.done:
		if p.err != nil {
			t.Fatalf("%s: %v\n%s", p.name(), p.err, p.out.String())
		}
	case <-time.After(5 * time.Minute):
		p.cmd.Process.Kill()
		t.Fatalf("%s did not end within 5 minutes\n%s", p.name(), p.out.String())
	}
}

// stop ends the process with SIGTERM, as an operator would, and waits.
func (p *proc) stop(t *testing.T) {
	t.Helper()
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(2 * time.Minute):
		p.cmd.Process.Kill()
		t.Errorf("%s did not stop within 2 minutes of SIGTERM", p.name())
	}
}

// A server is a flowctl serve process.
type server struct {
	*proc
	url string
}

var listening = regexp.MustCompile(`on (http://127\.0\.0\.1:\d+)`)

// serve starts flowctl serve on dir and waits until it listens.
func serve(t *testing.T, dir string, env []string, args ...string) *server {
	t.Helper()
	p := start(t, dir, env, append([]string{"serve", "--addr", "127.0.0.1:0", "--sandbox", "inprocess"}, args...)...)
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if m := listening.FindStringSubmatch(p.out.String()); m != nil {
			return &server{proc: p, url: m[1]}
		}
		select {
		case <-p.done:
			t.Fatalf("%s ended: %v\n%s", p.name(), p.err, p.out.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not say where it listens within 2 minutes\n%s", p.name(), p.out.String())
		}
	}
}

// start starts a run of flow with inputs (a JSON object) and returns its
// id. A server refuses starts with 503 while its state does not answer
// (after a fault, until it has reconnected): the request is made again, as
// a client told Retry-After would, for up to two minutes.
func (s *server) start(t *testing.T, flow, inputs string) string {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		resp, err := http.Post(s.url+"/v1/flows/"+flow+"/runs", "application/json", strings.NewReader(`{"inputs": `+inputs+`}`))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusServiceUnavailable && time.Now().Before(deadline) {
			time.Sleep(250 * time.Millisecond)
			continue
		}
		var r struct {
			RunID string `json:"run_id"`
		}
		if resp.StatusCode/100 != 2 || json.Unmarshal(b, &r) != nil || r.RunID == "" {
			t.Fatalf("POST a run of %s: %d %s", flow, resp.StatusCode, b)
		}
		return r.RunID
	}
}

// finished is the status of the run_finished event of apply --json's
// output, "" when there is none.
func finished(out string) string {
	for _, line := range strings.Split(out, "\n") {
		var e struct {
			Type   string `json:"type"`
			Status string `json:"status"`
		}
		if json.Unmarshal([]byte(line), &e) == nil && e.Type == "run_finished" {
			return e.Status
		}
	}
	return ""
}
