package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// How serve and mcp --http listen: on an address (Listen), over HTTP or
// HTTPS (TLS), with an http.Server of their own (NewHTTPServer), until a
// signal ends them (Serve, ServeUntil); and their log (NewLogger).

// Listen listens on addr for a command that serves over HTTP.
func Listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", addr, err)
	}
	return ln, nil
}

// NewHTTPServer is the http.Server of serve and mcp --http.
func NewHTTPServer(h http.Handler) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
}

// TLS is the certificate and private key (PEM files) of a server that
// serves HTTPS (--tls-cert and --tls-key); without them, HTTP.
type TLS struct{ Cert, Key string }

// Check reads the certificate and key, and says why they do not make a
// key pair.
func (t TLS) Check() error {
	if t.Cert == "" {
		return nil
	}
	_, err := tls.LoadX509KeyPair(t.Cert, t.Key)
	return err
}

// Scheme is the scheme of the server's URLs.
func (t TLS) Scheme() string {
	if t.Cert != "" {
		return "https"
	}
	return "http"
}

// Serve serves hs on ln, over TLS when there is a certificate.
func (t TLS) Serve(hs *http.Server, ln net.Listener) error {
	if t.Cert != "" {
		return hs.ServeTLS(ln, t.Cert, t.Key)
	}
	return hs.Serve(ln)
}

// ServeUntil serves hs on ln until ctx ends, then shuts it down, giving
// requests under way until grace; an error of serving is returned.
func ServeUntil(ctx context.Context, hs *http.Server, ln net.Listener, t TLS, grace time.Duration) error {
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), grace)
		defer cancel()
		hs.Shutdown(sctx)
	}()
	if err := t.Serve(hs, ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Serve serves s with hs on ln until ctx ends (SIGTERM, SIGINT), then
// stops accepting, lets running runs finish for grace, and stops what is
// left and the queue, recorded as interrupted for the next server to take
// up. An error of serving closes s and is returned.
func (s *Server) Serve(ctx context.Context, hs *http.Server, ln net.Listener, t TLS, grace time.Duration, log *slog.Logger) error {
	errc := make(chan error, 1)
	go func() { errc <- t.Serve(hs, ln) }()
	select {
	case err := <-errc:
		s.Close()
		return err
	case <-ctx.Done():
	}
	// Stop accepting; let running runs finish for a while; stop
	// what is left and the queue, recorded as interrupted for the
	// next server to take up.
	log.Info(fmt.Sprintf("Stopping: running runs have %s to finish; the others are interrupted, and resumed by the next server.", grace))
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	shut := make(chan error, 1)
	go func() { shut <- hs.Shutdown(sctx) }() // event streams end when their runs do
	all := s.Drain(sctx)
	s.Close()
	log.Info("stopped", slog.Bool("runs_finished", all))
	if err := <-shut; err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

// The log of the commands that run as services (serve, mcp --http,
// worker): log/slog on standard error, as text (key=value, the default) or
// as JSON (--log-format json), one record a line.

// NewLogger is the logger of a service writing to w in format: "text"
// (or "") or "json".
func NewLogger(w io.Writer, format string) (*slog.Logger, error) {
	switch format {
	case "text", "":
		return slog.New(slog.NewTextHandler(w, nil)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, nil)), nil
	}
	return nil, fmt.Errorf("unknown --log-format %q: use text or json", format)
}
