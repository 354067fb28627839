// Package terminal asks questions on a terminal: whether a stream is
// one, a line read that a context can end, the approval questions of a
// run in the foreground and the clarifying questions of the thinker.
package terminal

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/user"
	"strings"
	"sync"

	"github.com/flowctl/flowctl/runtime"
	"golang.org/x/term"
)

// Is reports whether v is a terminal (an *os.File on one).
func Is(v any) bool {
	f, ok := v.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Line prints a prompt and reads one line, trimmed. It returns io.EOF
// when the input ends before a line, and ctx's error when ctx ends first
// (the read goes on in the background).
func Line(ctx context.Context, r *bufio.Reader, w io.Writer, prompt string) (string, error) {
	fmt.Fprint(w, prompt)
	type read struct {
		line string
		err  error
	}
	done := make(chan read, 1)
	go func() {
		line, err := r.ReadString('\n')
		if err != nil && line != "" {
			err = nil // a last line without a newline
		}
		done <- read{strings.TrimSpace(line), err}
	}()
	select {
	case got := <-done:
		return got.line, got.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// User is the name of the user of this process, who decides what is
// asked on its terminal: the account's name, else $USER.
func User() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return os.Getenv("USER")
}

// Holder is where a run's lines go while a question is asked: Hold
// returns the writer of the question and holds the other lines until
// Release.
type Holder interface {
	Hold() io.Writer
	Release()
}

// Asker asks approval questions on the terminal, one at a time, holding
// the run's other lines until the answer. Its Ask is runtime.Options.Ask.
type Asker struct {
	mu   sync.Mutex
	In   *bufio.Reader
	By   string // who decides
	View Holder
}

// Ask asks req's question until the answer is yes or no (y, n, any
// case), a comment after a colon kept: "no: wrong list". It returns ctx's
// error when ctx ends first, and runtime.ErrNoAnswer when the input ends.
func (a *Asker) Ask(ctx context.Context, req runtime.ApprovalRequest) (runtime.Decision, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := a.View.Hold()
	defer a.View.Release()
	fmt.Fprintf(out, "\n? %s asks: %s\n", runtime.Label(req.Step, req.Instance), req.Message)
	for {
		l, err := Line(ctx, a.In, out, `  Approve? yes or no, a comment may follow a colon ("no: wrong list"): `)
		switch {
		case ctx.Err() != nil:
			fmt.Fprintln(out)
			return runtime.Decision{}, ctx.Err()
		case err != nil:
			fmt.Fprintln(out)
			return runtime.Decision{}, runtime.ErrNoAnswer
		default:
			answer, comment, _ := strings.Cut(l, ":")
			switch strings.ToLower(strings.TrimSpace(answer)) {
			case "yes", "y":
				return runtime.Decision{Approved: true, Comment: strings.TrimSpace(comment), By: a.By}, nil
			case "no", "n":
				return runtime.Decision{Approved: false, Comment: strings.TrimSpace(comment), By: a.By}, nil
			}
		}
	}
}

// Answer asks the thinker's clarifying questions on w and reads each
// answer, one line; at the end of the input it goes on as it is ("").
func Answer(in *bufio.Reader, w io.Writer) func(ctx context.Context, question string) (string, error) {
	return func(ctx context.Context, question string) (string, error) {
		line, err := Line(ctx, in, w, fmt.Sprintf("\n%s\n(answer, or press Enter to go on as it is) > ", question))
		if err == io.EOF {
			return "", nil // go on as it is
		}
		return line, err
	}
}
