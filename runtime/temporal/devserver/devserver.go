// Package devserver starts a Temporal dev server (the temporal CLI's
// `server start-dev`, v1.5.1) for tests and benchmarks: in memory, on free
// loopback ports, with timers that fire on time.
package devserver

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/flowctl/flowctl/runtime/temporal"
)

// Find is the temporal CLI: FLOWCTL_TEMPORAL, else temporal in PATH, else
// ~/.cache/flowctl/bin/temporal (where .ci/run installs it); "" when none
// is there.
func Find() string {
	if p := os.Getenv("FLOWCTL_TEMPORAL"); p != "" {
		return p
	}
	if p, err := exec.LookPath("temporal"); err == nil {
		return p
	}
	if home, err := os.UserHomeDir(); err == nil {
		p := filepath.Join(home, ".cache", "flowctl", "bin", "temporal")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// A Server is a running dev server.
type Server struct {
	Addr string // HOST:PORT of its frontend
	cmd  *exec.Cmd
	logs bytes.Buffer
}

// Start starts the dev server bin and waits until it answers.
func Start(bin string) (*Server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	ui, err := freePort()
	if err != nil {
		return nil, err
	}
	s := &Server{Addr: fmt.Sprintf("127.0.0.1:%d", port)}
	s.cmd = exec.Command(bin, "server", "start-dev", "--headless", "--ip", "127.0.0.1",
		"--port", fmt.Sprint(port), "--ui-port", fmt.Sprint(ui), "--log-level", "error",
		// Timers fire up to 1s late by default: the history service may
		// shift them to batch its work.
		"--dynamic-config-value", `history.timerProcessorMaxTimeShift="10ms"`)
	s.cmd.Stdout, s.cmd.Stderr = &s.logs, &s.logs
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
		c, err := temporal.Dial(s.Addr, "", nil)
		if err == nil {
			_, err = c.CheckHealth(context.Background(), nil)
			c.Close()
			if err == nil {
				return s, nil
			}
		}
		if time.Now().After(deadline) {
			s.Stop()
			return nil, fmt.Errorf("the Temporal dev server did not come up at %s: %v\n%s", s.Addr, err, s.logs.String())
		}
	}
}

// Stop stops the server (SIGTERM, then SIGKILL after 30s).
func (s *Server) Stop() {
	s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		s.cmd.Process.Kill()
		<-done
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
