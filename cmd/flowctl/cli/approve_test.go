package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/terminal"
)

// TestTerminalAsker: the question is asked until the answer is yes or no,
// a comment after a colon is kept, lines of other steps wait until the
// answer, and the step's deadline ends the question.
func TestTerminalAsker(t *testing.T) {
	out := &syncBuffer{}
	view := views.NewApplyHuman(out, false, 0, false)
	a := &terminal.Asker{In: bufio.NewReader(strings.NewReader("maybe\nNo: wrong list\n")), By: "ana", View: view}
	req := runtime.ApprovalRequest{Step: "review", Message: "Send 2 emails?"}
	d, err := a.Ask(context.Background(), req)
	if err != nil || d.Approved || d.Comment != "wrong list" || d.By != "ana" {
		t.Fatalf("decision %+v, %v", d, err)
	}
	if n := strings.Count(out.String(), "Approve? yes or no"); n != 2 || !strings.Contains(out.String(), "? review asks: Send 2 emails?") {
		t.Errorf("asked %d times:\n%s", n, out.String())
	}

	// Another step's line printed during the question comes after it.
	pr, pw := io.Pipe()
	out.Reset()
	a = &terminal.Asker{In: bufio.NewReader(pr), By: "ana", View: view}
	done := make(chan runtime.Decision)
	go func() {
		d, _ := a.Ask(context.Background(), req)
		done <- d
	}()
	for !strings.Contains(out.String(), "Approve?") {
		time.Sleep(time.Millisecond)
	}
	view.Event(runtime.StepFinished{Step: "other", Status: runtime.StatusOK})
	pw.Write([]byte("y\n"))
	if d := <-done; !d.Approved {
		t.Errorf("yes: %+v", d)
	}
	if q, l := strings.Index(out.String(), "Approve?"), strings.Index(out.String(), "other"); q < 0 || l < q {
		t.Errorf("the other step's line is not after the question:\n%s", out.String())
	}

	// The deadline ends the question.
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	a = &terminal.Asker{In: bufio.NewReader(pr), By: "ana", View: view}
	if _, err := a.Ask(ctx, req); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("after the deadline: %v", err)
	}
	pw.Close()
	a = &terminal.Asker{In: bufio.NewReader(strings.NewReader("")), By: "ana", View: view}
	if _, err := a.Ask(context.Background(), req); !errors.Is(err, runtime.ErrNoAnswer) {
		t.Errorf("at the end of the input: %v", err)
	}
}

// syncBuffer is a buffer safe for concurrent use, as a terminal is.
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

func (s *syncBuffer) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b.Reset()
}
