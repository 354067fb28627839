package lsp

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

func lspFrame(body string) string {
	return "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
}

const initializeMsg = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"capabilities":{}}}`

// nopCloser is a buffer the server writes to.
type nopCloser struct{ bytes.Buffer }

func (*nopCloser) Close() error { return nil }

// TestBadFrames: after a good request (answered), a frame whose header
// cannot be read ends the session with a *FrameError saying why: never a
// panic, nor an allocation of the length the header claims.
func TestBadFrames(t *testing.T) {
	cases := map[string]struct{ frame, want string }{
		"huge length":        {"Content-Length: 4611686018427387904\r\n\r\n", "Content-Length 4611686018427387904 is over the limit of 67108864 bytes (64 MiB)"},
		"over the limit":     {"Content-Length: 67108865\r\n\r\n", "over the limit"},
		"many digits":        {"Content-Length: " + strings.Repeat("9", 400) + "\r\n\r\n", "over the limit"},
		"negative":           {"Content-Length: -5\r\n\r\n{}", `Content-Length "-5" is not a number of bytes`},
		"not a number":       {"Content-Length: ten\r\n\r\n{}", `Content-Length "ten" is not a number of bytes`},
		"sign":               {"Content-Length: +2\r\n\r\n{}", `Content-Length "+2" is not a number of bytes`},
		"empty":              {"Content-Length: \r\n\r\n{}", `Content-Length "" is not a number of bytes`},
		"missing":            {"X-Other: 1\r\n\r\n{}", "no Content-Length header"},
		"twice":              {"Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}", "more than one Content-Length"},
		"not a field":        {"hello\r\n\r\n{}", `"hello" is not a header field`},
		"long line":          {"X-Pad: " + strings.Repeat("a", 1<<20) + "\r\n\r\n{}", "a header line is over 4096 bytes"},
		"endless header":     {strings.Repeat("X-Pad: a\r\n", 10000), "the header is over 65536 bytes"},
		"cut header":         {"Content-Length: 2\r\n", "the stream ended inside a header"},
		"short body":         {"Content-Length: 200\r\n\r\n{}", "the stream ended after 2 of the message's 200 bytes"},
		"cut header no line": {"Content-Len", "the stream ended inside a header"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			done := make(chan error, 1)
			go func() { done <- Serve(inR, outW, Options{}) }()
			go func() {
				io.WriteString(inW, lspFrame(initializeMsg))
			}()
			// The answer to the good request comes before the bad frame
			// is sent.
			reply, err := newFrames(outR, outW).Recv()
			if err != nil || !strings.Contains(string(reply), `"id":1`) || !strings.Contains(string(reply), `"capabilities"`) {
				t.Fatalf("the request before the bad frame: %s, %v", reply, err)
			}
			go io.Copy(io.Discard, outR)
			go func() {
				io.WriteString(inW, c.frame)
				inW.Close()
			}()
			err = <-done
			var fe *FrameError
			if !errors.As(err, &fe) || !strings.HasPrefix(err.Error(), "bad message header: ") || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Serve returned %v, want a *FrameError with %q", err, c.want)
			}
		})
	}
}

// TestFramesRead: well-formed frames are read whole, whatever header
// fields come with them and however the bytes arrive; a stream that ends
// between messages is the end of the session.
func TestFramesRead(t *testing.T) {
	msgs := []string{`{"a":1}`, `{"b":"` + strings.Repeat("x", 100000) + `"}`, `{}`}
	var in strings.Builder
	in.WriteString("Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n" + lspFrame(msgs[0]))
	in.WriteString("content-length:  " + strconv.Itoa(len(msgs[1])) + "\r\n\r\n" + msgs[1])
	in.WriteString(lspFrame(msgs[2]))
	f := newFrames(iotest.OneByteReader(strings.NewReader(in.String())), &nopCloser{})
	for i, want := range msgs {
		got, err := f.Recv()
		if err != nil || string(got) != want {
			t.Fatalf("message %d: %.40q, %v; want %.40q", i, got, err, want)
		}
	}
	if _, err := f.Recv(); err != io.EOF {
		t.Errorf("after the last message: %v, want io.EOF", err)
	}
}
