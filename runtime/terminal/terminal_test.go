package terminal

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/runtime"
	"github.com/zclconf/go-cty/cty"
)

// TestLine: a line trimmed, a last line without a newline, io.EOF at the
// end, and ctx's error when it ends before a line.
func TestLine(t *testing.T) {
	var w bytes.Buffer
	r := bufio.NewReader(strings.NewReader("  yes \nlast"))
	for _, want := range []string{"yes", "last"} {
		if got, err := Line(context.Background(), r, &w, "? "); got != want || err != nil {
			t.Errorf("Line = %q, %v; want %q", got, err, want)
		}
	}
	if _, err := Line(context.Background(), r, &w, "? "); err != io.EOF {
		t.Errorf("at the end: %v", err)
	}
	if w.String() != "? ? ? " {
		t.Errorf("prompts %q", w.String())
	}
	pr, pw := io.Pipe()
	defer pw.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Line(ctx, bufio.NewReader(pr), io.Discard, ""); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// holder records the question's lines and whether it was released.
type holder struct {
	bytes.Buffer
	held, released int
}

func (h *holder) Hold() io.Writer { h.held++; return &h.Buffer }
func (h *holder) Release()        { h.released++ }

// TestAsk: the question is asked until the answer is yes or no, with the
// comment after a colon and the decider; the end of the input is
// runtime.ErrNoAnswer; the lines are held while it asks.
func TestAsk(t *testing.T) {
	h := &holder{}
	a := &Asker{In: bufio.NewReader(strings.NewReader("maybe\nNo: wrong list\nY\n")), By: "ana", View: h}
	req := runtime.ApprovalRequest{Step: "review", Instance: runtime.Key{Value: cty.StringVal("a")}, Message: "Send?"}
	d, err := a.Ask(context.Background(), req)
	if err != nil || d != (runtime.Decision{Approved: false, Comment: "wrong list", By: "ana"}) {
		t.Fatalf("decision %+v, %v", d, err)
	}
	if n := strings.Count(h.String(), "Approve? yes or no"); n != 2 || !strings.Contains(h.String(), `? review["a"] asks: Send?`) {
		t.Errorf("asked %d times:\n%s", n, h.String())
	}
	if d, err := a.Ask(context.Background(), req); err != nil || !d.Approved || d.Comment != "" {
		t.Errorf("y: %+v, %v", d, err)
	}
	if _, err := a.Ask(context.Background(), req); !errors.Is(err, runtime.ErrNoAnswer) {
		t.Errorf("at the end of the input: %v", err)
	}
	if h.held != 3 || h.released != 3 {
		t.Errorf("held %d, released %d; want 3 each", h.held, h.released)
	}
}

// TestAnswer: a clarifying question's answer, and "" at the end of the
// input.
func TestAnswer(t *testing.T) {
	var w bytes.Buffer
	ask := Answer(bufio.NewReader(strings.NewReader("a list\n")), &w)
	for _, want := range []string{"a list", ""} {
		if got, err := ask(context.Background(), "Which?"); got != want || err != nil {
			t.Errorf("answer %q, %v; want %q", got, err, want)
		}
	}
	if !strings.Contains(w.String(), "Which?\n(answer, or press Enter to go on as it is) > ") {
		t.Errorf("prompt %q", w.String())
	}
}
