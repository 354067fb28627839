package cli

import (
	"os"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/runtime/engine"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/flowctl/flowctl/server"
)

// What serve and mcp share: both serve the flows under a directory, with
// the state and the executors of apply (engine.OpenServed), and both may
// listen on HTTP with a bearer token.

// servedDir is a directory of flows opened to be served, by the names
// serve and mcp use: its go engine, state and executors.
type servedDir struct {
	engine string
	st     *state.Store
	ex     *blocks.Executors
	http   blocks.HTTPOptions // those of ex's http and scrape blocks
	close  func()
}

// checkDir refuses a DIR argument that is not a directory.
func checkDir(dir string) error {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return usagef("%s is not a directory", dir)
	}
	return nil
}

// openServedDir opens the state of dir and the executors
// (engine.OpenServed); close releases them.
func openServedDir(s streams, f *arguments.Dir, dir string) (*servedDir, error) {
	d, err := engine.OpenServed(engine.ServedOptions{
		Dir: dir, State: f.State, Store: state.Options{Migrate: f.Store.Migrate, Wait: f.Store.Wait},
		Sandbox: f.Sandbox, GoEngine: f.GoEngine, HTTPAllow: f.HTTPAllow, Unconfined: f.Unconfined, Warnings: s.err,
	})
	if err != nil {
		return nil, fromBelow(err)
	}
	return &servedDir{engine: d.GoEngine, st: d.Store, ex: d.Executors, http: d.HTTP, close: d.Close}, nil
}

// tlsFlags are --tls-cert and --tls-key: with both, HTTPS.
type tlsFlags struct{ server.TLS }

// check refuses one of the two without the other, and files that do not
// make a key pair.
func (f tlsFlags) check() error {
	if (f.Cert == "") != (f.Key == "") {
		return usagef("--tls-cert and --tls-key go together")
	}
	if err := f.Check(); err != nil {
		return usagef("--tls-cert and --tls-key: %v", err)
	}
	return nil
}
