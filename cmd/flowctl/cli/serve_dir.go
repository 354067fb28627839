package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/spf13/cobra"
)

// What serve and mcp share: both serve the flows under a directory, with
// the state and the executors of apply, and both may listen on HTTP with a
// bearer token.

// dirFlags are the flags of a command that serves the flows under DIR.
type dirFlags struct {
	stateDir, tokenFile, sandbox, goEngine string
	registries, httpAllow                  []string
}

// register adds the flags to cmd; tokenUse is the help of --token-file.
func (f *dirFlags) register(cmd *cobra.Command, tokenUse string) {
	cmd.Flags().StringVar(&f.stateDir, "state", "", "the state directory, or a postgres:// URL (default: "+envStateURL+", else DIR/.flowctl)")
	cmd.Flags().StringVar(&f.tokenFile, "token-file", "", tokenUse)
	cmd.Flags().StringArrayVar(&f.registries, "registry", nil, "a directory of *.block.hcl files to add to the registry (repeatable)")
	cmd.Flags().StringVar(&f.sandbox, "sandbox", sandboxIsolated, "where go and js blocks run: isolated or inprocess")
	cmd.Flags().StringVar(&f.goEngine, "go-engine", "", goEngineUsage)
	cmd.Flags().StringArrayVar(&f.httpAllow, "http-allow", nil, "where http and scrape steps may connect, as for apply")
}

// servedDir is a directory of flows opened to be served: its state and the
// executors of its blocks.
type servedDir struct {
	dir     string
	engine  string // the go engine
	st      *state.Store
	ex      *blocks.Executors
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
	engine, err := resolveGoEngine(f.goEngine)
	if err != nil {
		return nil, err
	}
	st, err := openStateDir(stateLocation(f.stateDir, filepath.Join(dir, ".flowctl")))
	if err != nil {
		return nil, err
	}
	ex, release, err := executors(execOptions{sandbox: f.sandbox, goEngine: engine, httpAllow: f.httpAllow, warnings: s.err})
	if err != nil {
		st.Close()
		return nil, err
	}
	return &servedDir{dir: dir, engine: engine, st: st, ex: ex, release: release}, nil
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
func serveUntil(ctx context.Context, hs *http.Server, ln net.Listener, grace time.Duration) error {
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), grace)
		defer cancel()
		hs.Shutdown(sctx)
	}()
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// listenToken reads the bearer token of a command that listens on addr
// (FLOWCTL_TOKEN, or --token-file), and refuses an address beyond the
// loopback interface without one.
func listenToken(command, addr, tokenFile string) (string, error) {
	token := os.Getenv(envToken)
	if tokenFile != "" {
		b, err := os.ReadFile(tokenFile)
		if err != nil {
			return "", usagef("reading --token-file: %v", err)
		}
		token = strings.TrimSpace(string(b))
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return "", usagef("%q is not HOST:PORT", addr)
	}
	if ip := net.ParseIP(host); token == "" && (ip == nil || !ip.IsLoopback()) && host != "localhost" {
		return "", usagef("%s listens beyond the loopback interface (%s) only with a token: set %s or --token-file", command, addr, envToken)
	}
	return token, nil
}
