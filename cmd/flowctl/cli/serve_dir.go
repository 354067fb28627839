package cli

import (
	"os"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/project"
	"github.com/flowctl/flowctl/runtime/engine"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/flowctl/flowctl/server"
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

// tlsFlags are --tls-cert and --tls-key: with both, HTTPS.
type tlsFlags struct{ server.TLS }

func (f *tlsFlags) register(cmd *cobra.Command, prefix string) {
	cmd.Flags().StringVar(&f.Cert, "tls-cert", "", prefix+"serve HTTPS with this certificate (PEM; with --tls-key)")
	cmd.Flags().StringVar(&f.Key, "tls-key", "", prefix+"the private key (PEM) of --tls-cert")
}

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
