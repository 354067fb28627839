// Package devserver starts a Temporal dev server (the temporal CLI's
// `server start-dev`, v1.5.1) for tests and benchmarks: in memory, on free
// loopback ports, with timers that fire on time.
package devserver

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/flowctl/flowctl/runtime/temporal"
	"go.temporal.io/api/workflowservice/v1"
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
	Addr     string // HOST:PORT of its frontend
	bin      string
	opts     Options
	port, ui int
	own      string // a namespace of this server's alone (answers)
	cmd      *exec.Cmd
	exited   chan struct{} // closed when cmd has exited
	logs     bytes.Buffer  // read once exited is closed
}

// Options of a dev server.
type Options struct {
	// Namespaces are created besides "default".
	Namespaces []string
	// DBFile, when set, is the SQLite file the server keeps its data in
	// (--db-filename); without it the server keeps everything in memory,
	// and forgets it when it stops.
	DBFile string
}

// Start starts the dev server bin, in memory, and waits until it
// answers.
func Start(bin string) (*Server, error) { return StartWith(bin, Options{}) }

// StartWith starts the dev server bin with options, and waits until it
// answers. The ports are free when they are chosen, but another process
// may take one before the server binds it (the dev server chooses its
// HTTP and membership ports itself, and another test's server may take
// ours): a server that exits for a port in use is started again on other
// ports, up to startTries times.
func StartWith(bin string, o Options) (*Server, error) {
	for try := 1; ; try++ {
		port, err := choosePort()
		if err != nil {
			return nil, err
		}
		ui, err := choosePort()
		if err != nil {
			return nil, err
		}
		s := &Server{Addr: fmt.Sprintf("127.0.0.1:%d", port), bin: bin, opts: o, port: port, ui: ui, own: ownNamespace()}
		err = s.start()
		if err == nil {
			return s, nil
		}
		if !errors.Is(err, errPortInUse) || try == startTries {
			return nil, err
		}
	}
}

// startTries is how many times a server is started when a port it needs
// is in use.
const startTries = 5

// errPortInUse: the server exited because a port it needs was taken.
var errPortInUse = errors.New("a port it needs is in use")

func (s *Server) start() error {
	args := []string{"server", "start-dev", "--headless", "--ip", "127.0.0.1",
		"--port", fmt.Sprint(s.port), "--ui-port", fmt.Sprint(s.ui), "--log-level", "error",
		// Timers fire up to 1s late by default: the history service may
		// shift them to batch its work.
		"--dynamic-config-value", `history.timerProcessorMaxTimeShift="10ms"`}
	for _, ns := range append(slices.Clone(s.opts.Namespaces), s.own) {
		args = append(args, "--namespace", ns)
	}
	if s.opts.DBFile != "" {
		args = append(args, "--db-filename", s.opts.DBFile)
	}
	s.logs.Reset()
	s.cmd = exec.Command(s.bin, args...)
	s.cmd.Stdout, s.cmd.Stderr = &s.logs, &s.logs
	if err := s.cmd.Start(); err != nil {
		return err
	}
	s.exited = make(chan struct{})
	go func() { s.cmd.Wait(); close(s.exited) }()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		err := s.answers()
		if err == nil {
			return nil
		}
		select {
		case <-s.exited:
			logs := s.logs.String()
			if strings.Contains(logs, "address already in use") {
				return fmt.Errorf("the Temporal dev server at %s exited: %w\n%s", s.Addr, errPortInUse, logs)
			}
			return fmt.Errorf("the Temporal dev server at %s exited before it answered: %s\n%s", s.Addr, s.cmd.ProcessState, logs)
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.Stop()
			return fmt.Errorf("the Temporal dev server did not come up at %s: %v\n%s", s.Addr, err, s.logs.String())
		}
	}
}

// answers reports whether this server answers at s.Addr. Another
// server may be listening there (another test's took the port first, and
// this one is exiting for it): only this one has the namespace s.own.
func (s *Server) answers() error {
	c, err := temporal.Dial(temporal.DialOptions{Address: s.Addr})
	if err != nil {
		return err
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.CheckHealth(ctx, nil); err != nil {
		return err
	}
	_, err = c.WorkflowService().DescribeNamespace(ctx, &workflowservice.DescribeNamespaceRequest{Namespace: s.own})
	return err
}

// Restart stops the server and starts it again at the same address: a
// server in memory comes back without a record of anything it had. A port
// the server needs besides its address may have been taken meanwhile: it
// is started again, as StartWith does, up to startTries times.
func (s *Server) Restart() error {
	s.Stop()
	for try := 1; ; try++ {
		err := s.start()
		if err == nil || !errors.Is(err, errPortInUse) || try == startTries {
			return err
		}
		time.Sleep(time.Second)
	}
}

// Stop stops the server (SIGTERM, then SIGKILL after 30s).
func (s *Server) Stop() {
	if s.cmd.Process == nil { // it could not be started again
		return
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(30 * time.Second):
		s.cmd.Process.Kill()
		<-s.exited
	}
}

// ownNamespace is a namespace name no other server has.
func ownNamespace() string {
	b := make([]byte, 8)
	rand.Read(b)
	return "flowctl-devserver-" + hex.EncodeToString(b)
}

// choosePort chooses a port for a server; a variable for tests.
var choosePort = freePort

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
