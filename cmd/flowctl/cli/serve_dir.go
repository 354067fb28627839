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
	"github.com/flowctl/flowctl/project"
	"github.com/flowctl/flowctl/runtime/engine"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/spf13/cobra"
)

// What serve and mcp share: both serve the flows under a directory, with
// the state and the executors of apply, and both may listen on HTTP with a
// bearer token.

// dirFlags are the flags of a command that serves the flows under DIR.
type dirFlags struct {
	stateDir, sandbox, goEngine string
	registries                  registryFlags
	httpAllow                   []string
	tokens                      tokenFlags
	tls                         tlsFlags
	log                         logFlags
	unconfined                  bool
	store                       storeFlags // --migrate, --state-wait
}

// register adds the flags to cmd; listening prefixes the help of those
// that matter only when the command listens on HTTP.
func (f *dirFlags) register(cmd *cobra.Command, listening string) {
	cmd.Flags().StringVar(&f.stateDir, "state", "", stateHelp+"; DIR counts as the working directory")
	f.tokens.register(cmd, listening)
	f.tls.register(cmd, listening)
	f.log.register(cmd)
	f.registries.register(cmd)
	cmd.Flags().StringVar(&f.sandbox, "sandbox", sandboxIsolated, "where go and js blocks run: isolated or inprocess")
	cmd.Flags().StringVar(&f.goEngine, "go-engine", "", goEngineUsage)
	cmd.Flags().BoolVar(&f.unconfined, "unconfined", false, unconfinedUsage)
	cmd.Flags().StringArrayVar(&f.httpAllow, "http-allow", nil, "where http and scrape steps may connect, as for apply")
	f.store.register(cmd)
}

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

// dirArg is the directory a command's arguments name (default: .).
func dirArg(args []string) (string, error) {
	dir := "."
	if len(args) == 1 {
		dir = args[0]
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return "", usagef("%s is not a directory", dir)
	}
	return dir, nil
}

// open opens the state of dir and the executors; close releases them.
func (f *dirFlags) open(s streams, dir string) (*servedDir, error) {
	goEngine, err := resolveGoEngine(f.goEngine)
	if err != nil {
		return nil, err
	}
	where := project.State(f.stateDir, dir)
	st, err := f.store.open(s.err, where)
	if err != nil {
		return nil, err
	}
	if f.stateDir == "" {
		warnOtherStates(s.err, dir, where)
	}
	ex, release, err := executors(engine.Options{Sandbox: f.sandbox, GoEngine: goEngine, HTTPAllow: f.httpAllow, Warnings: s.err, Unconfined: f.unconfined})
	if err != nil {
		st.Close()
		return nil, err
	}
	hopts, err := httpOptions(f.httpAllow, 0, os.LookupEnv)
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

// tlsFlags are --tls-cert and --tls-key: with both, HTTPS.
type tlsFlags struct{ cert, key string }

func (f *tlsFlags) register(cmd *cobra.Command, prefix string) {
	cmd.Flags().StringVar(&f.cert, "tls-cert", "", prefix+"serve HTTPS with this certificate (PEM; with --tls-key)")
	cmd.Flags().StringVar(&f.key, "tls-key", "", prefix+"the private key (PEM) of --tls-cert")
}

// check refuses one of the two without the other, and files that do not
// make a key pair.
func (f tlsFlags) check() error {
	if (f.cert == "") != (f.key == "") {
		return usagef("--tls-cert and --tls-key go together")
	}
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
