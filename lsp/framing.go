package lsp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/creachadair/jrpc2/channel"
)

// The limits of a message the server reads. A Content-Length is digits
// only and at most MaxMessageSize; a header line is at most
// maxHeaderLine bytes and a whole header at most maxHeader.
const (
	MaxMessageSize = 64 << 20
	maxHeaderLine  = 4 << 10
	maxHeader      = 64 << 10
)

// A FrameError is a message header the server cannot read. After one it
// cannot tell where the next message starts, so the session ends.
type FrameError struct{ Reason string }

func (e *FrameError) Error() string { return "bad message header: " + e.Reason }

func frameErrorf(format string, args ...any) error {
	return &FrameError{Reason: fmt.Sprintf(format, args...)}
}

// frames is the LSP's framing (Content-Length headers) with limits: the
// JSON-RPC library's own reader trusts the header's length and allocates
// twice it before reading a byte (Content-Length: 4611686018427387904 made
// it panic), so the server reads the frames itself and hands the library
// only whole messages. Messages it sends are framed by the library.
type frames struct {
	send channel.Channel // Send and Close
	rd   *bufio.Reader
}

func newFrames(r io.Reader, w io.WriteCloser) channel.Channel {
	return &frames{send: channel.LSP(r, w), rd: bufio.NewReaderSize(r, maxHeaderLine)}
}

func (f *frames) Send(msg []byte) error { return f.send.Send(msg) }
func (f *frames) Close() error          { return f.send.Close() }

// Recv reads one message: its header within the limits, then exactly
// Content-Length bytes, read as they arrive (the buffer grows with what
// came, not with what the header claims).
func (f *frames) Recv() ([]byte, error) {
	length, err := f.header()
	if err != nil {
		return nil, err
	}
	var body bytes.Buffer
	n, err := io.CopyN(&body, f.rd, length)
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, frameErrorf("the stream ended after %d of the message's %d bytes", n, length)
		}
		return nil, err
	}
	return body.Bytes(), nil
}

// header reads a message's header up to its blank line and returns its
// Content-Length. A stream that ends before a header begins is io.EOF.
func (f *frames) header() (int64, error) {
	length, total, lines := int64(-1), 0, 0
	for {
		line, err := f.line()
		if err != nil {
			if err == io.EOF && lines == 0 && line == "" {
				return 0, io.EOF
			}
			if err == io.EOF {
				return 0, frameErrorf("the stream ended inside a header")
			}
			return 0, err
		}
		lines++
		total += len(line) + 2
		if total > maxHeader {
			return 0, frameErrorf("the header is over %d bytes", maxHeader)
		}
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return 0, frameErrorf("%q is not a header field", clip(line))
		}
		if !strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			continue // Content-Type, and fields the protocol may add
		}
		if length >= 0 {
			return 0, frameErrorf("more than one Content-Length")
		}
		if length, err = parseLength(strings.TrimSpace(value)); err != nil {
			return 0, err
		}
	}
	if length < 0 {
		return 0, frameErrorf("no Content-Length header")
	}
	return length, nil
}

// line reads one header line of at most maxHeaderLine bytes, without its
// line end.
func (f *frames) line() (string, error) {
	var b []byte
	for {
		part, err := f.rd.ReadSlice('\n')
		b = append(b, part...)
		if len(b) > maxHeaderLine {
			return "", frameErrorf("a header line is over %d bytes", maxHeaderLine)
		}
		switch {
		case err == nil:
			return strings.TrimRight(string(b), "\r\n"), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return strings.TrimRight(string(b), "\r\n"), err
		}
	}
}

// parseLength reads a Content-Length: digits only, at most MaxMessageSize.
func parseLength(v string) (int64, error) {
	if v == "" || strings.TrimLeft(v, "0123456789") != "" {
		return 0, frameErrorf("Content-Length %q is not a number of bytes", clip(v))
	}
	var n int64
	for _, c := range v {
		n = n*10 + int64(c-'0')
		if n > MaxMessageSize {
			return 0, frameErrorf("Content-Length %s is over the limit of %d bytes (64 MiB)", clip(v), MaxMessageSize)
		}
	}
	return n, nil
}

// clip shortens a text quoted in an error.
func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}
