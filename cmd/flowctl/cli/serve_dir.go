package cli

import (
	"os"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/project"
	"github.com/flowctl/flowctl/runtime/engine"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/flowctl/flowctl/server"
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
