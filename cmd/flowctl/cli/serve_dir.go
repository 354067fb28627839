package cli

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/project"
	"github.com/flowctl/flowctl/runtime/engine"
	"github.com/flowctl/flowctl/runtime/state"
)

// What serve and mcp share: both serve the flows under a directory, with
// the state and the executors of apply, and both may listen on HTTP with a
// bearer token.

// servedDir is a directory of flows opened to be served: its state and the
// executors of its blocks.
type servedDir struct {
	dir     string
	engine  string // the go engine
	st      *state.Store
	ex      *blocks.Executors
	http    blocks.HTTPOptions // those of ex's http and scrape blocks
	release func()
}

// checkDir refuses a DIR argument that is not a directory.
func checkDir(dir string) error {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return usagef("%s is not a directory", dir)
	}
	return nil
}

// open opens the state of dir and the executors; close releases them.
func openServedDir(s streams, f *arguments.Dir, dir string) (*servedDir, error) {
	goEngine, err := resolveGoEngine(f.GoEngine)
	if err != nil {
		return nil, err
	}
	where := project.State(f.State, dir)
	st, err := openStore(s.err, &f.Store, where)
	if err != nil {
		return nil, err
	}
	if f.State == "" {
		warnOtherStates(s.err, dir, where)
	}
	ex, release, err := executors(engine.Options{Sandbox: f.Sandbox, GoEngine: goEngine, HTTPAllow: f.HTTPAllow, Warnings: s.err, Unconfined: f.Unconfined})
	if err != nil {
		st.Close()
		return nil, err
	}
	hopts, err := httpOptions(f.HTTPAllow, 0, os.LookupEnv)
	if err != nil {
		release()
		st.Close()
		return nil, err
	}
	return &servedDir{dir: dir, engine: goEngine, st: st, ex: ex, http: hopts, release: release}, nil
}

func (d *servedDir) close() {
	d.release()
	d.st.Close()
}

// listen listens on addr for a command that serves over HTTP.
func listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", addr, err)
	}
	return ln, nil
}

// newHTTPServer is the http.Server of serve and mcp --http.
func newHTTPServer(h http.Handler) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
}

// serveUntil serves hs on ln until ctx ends, then shuts it down, giving
// requests under way until grace; an error of serving is returned.
func serveUntil(ctx context.Context, hs *http.Server, ln net.Listener, tf tlsFlags, grace time.Duration) error {
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), grace)
		defer cancel()
		hs.Shutdown(sctx)
	}()
	if err := tf.serve(hs, ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// tlsFlags are --tls-cert and --tls-key (arguments.TLS): with both,
// HTTPS.
type tlsFlags struct{ cert, key string }

// check refuses files that do not make a key pair.
func (f tlsFlags) check() error {
	if f.cert != "" {
		if _, err := tls.LoadX509KeyPair(f.cert, f.key); err != nil {
			return usagef("--tls-cert and --tls-key: %v", err)
		}
	}
	return nil
}

// scheme is the scheme of the server's URLs.
func (f tlsFlags) scheme() string {
	if f.cert != "" {
		return "https"
	}
	return "http"
}

// serve serves hs on ln, over TLS when the flags say so.
func (f tlsFlags) serve(hs *http.Server, ln net.Listener) error {
	if f.cert != "" {
		return hs.ServeTLS(ln, f.cert, f.key)
	}
	return hs.Serve(ln)
}
