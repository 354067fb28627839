package server

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestNewLogger: the service log is text by default, JSON when asked, and
// another format is an error that names the two.
func TestNewLogger(t *testing.T) {
	for format, want := range map[string]string{"": "msg=hello", "text": "msg=hello", "json": `"msg":"hello"`} {
		var b bytes.Buffer
		log, err := NewLogger(&b, format)
		if err != nil {
			t.Fatal(err)
		}
		log.Info("hello")
		if !strings.Contains(b.String(), want) {
			t.Errorf("format %q: %q, want %s", format, b.String(), want)
		}
	}
	if _, err := NewLogger(io.Discard, "xml"); err == nil || err.Error() != `unknown --log-format "xml": use text or json` {
		t.Errorf("xml: %v", err)
	}
}

// TestTLSAndServeUntil: without a certificate a server speaks HTTP, with
// one HTTPS, and a pair that does not read is an error; ServeUntil serves
// until its context ends, and then returns without an error.
func TestTLSAndServeUntil(t *testing.T) {
	if (TLS{}).Scheme() != "http" || (TLS{Cert: "c", Key: "k"}).Scheme() != "https" || (TLS{}).Check() != nil {
		t.Error("the scheme or check of TLS")
	}
	if err := (TLS{Cert: "/nonexistent/c.pem", Key: "/nonexistent/k.pem"}).Check(); err == nil {
		t.Error("a certificate that does not read: no error")
	}
	ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := NewHTTPServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hi") }))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ServeUntil(ctx, hs, ln, TLS{}, time.Second) }()
	resp, err := http.Get("http://" + ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "hi" {
		t.Errorf("body %q", body)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("ServeUntil: %v", err)
	}
	if _, err := Listen("127.0.0.1:-1"); err == nil || !strings.HasPrefix(err.Error(), "listening on 127.0.0.1:-1: ") {
		t.Errorf("Listen of a bad address: %v", err)
	}
}
