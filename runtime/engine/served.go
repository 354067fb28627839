package engine

import (
	"fmt"
	"io"
	"os"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/project"
	"github.com/flowctl/flowctl/runtime/state"
)

// What serve and mcp share: both serve the flows under a directory, with
// the state and the executors of apply.

// Served is a directory of flows opened to be served: its state and the
// executors of its blocks.
type Served struct {
	Dir       string
	GoEngine  string // the go engine
	Store     *state.Store
	Executors *blocks.Executors
	HTTP      blocks.HTTPOptions // those of Executors' http and scrape blocks
	release   func()
}

// ServedOptions say how to open a directory to serve.
type ServedOptions struct {
	Dir string
	// State is the state's directory or URL (--state); "" for the
	// project's (project.State).
	State      string
	Store      state.Options // --migrate, --state-wait
	Sandbox    string
	GoEngine   string // --go-engine (ResolveGoEngine)
	HTTPAllow  []string
	Unconfined bool
	// Warnings get where a state was made, the states next to the flows
	// that are not the one in use, and the executors' warnings.
	Warnings io.Writer
}

// OpenServed opens the state of o.Dir and the executors; Close releases
// them. A state that cannot be opened is hcl.Diagnostics
// (project.OpenDiagnostics); a setting that cannot be used is a
// *SettingError.
func OpenServed(o ServedOptions) (*Served, error) {
	goEngine, err := ResolveGoEngine(o.GoEngine)
	if err != nil {
		return nil, err
	}
	where := project.State(o.State, o.Dir)
	st, made, err := project.Open(where, o.Store)
	if err != nil {
		return nil, project.OpenDiagnostics(where, err)
	}
	if made {
		fmt.Fprintln(o.Warnings, project.Made(where))
	}
	if o.State == "" {
		warnOtherStates(o.Warnings, o.Dir, where)
	}
	ex, release, err := Executors(Options{Sandbox: o.Sandbox, GoEngine: goEngine, HTTPAllow: o.HTTPAllow, Warnings: o.Warnings, Unconfined: o.Unconfined})
	if err != nil {
		st.Close()
		return nil, err
	}
	hopts, err := HTTPOptions(o.HTTPAllow, 0, os.LookupEnv)
	if err != nil {
		release()
		st.Close()
		return nil, err
	}
	return &Served{Dir: o.Dir, GoEngine: goEngine, Store: st, Executors: ex, HTTP: hopts, release: release}, nil
}

// Close releases the executors and closes the state.
func (d *Served) Close() {
	d.release()
	d.Store.Close()
}

// warnOtherStates says, for serve DIR and mcp DIR, where the states next
// to the flows under dir are that are not the state in use
// (project.OtherStates): their runs are not listed.
func warnOtherStates(w io.Writer, dir, inUse string) {
	if state.IsURL(inUse) {
		return
	}
	flows, _ := project.Find([]string{dir}, lang.IsFlowFile)
	for _, other := range project.OtherStates(flows, inUse) {
		fmt.Fprintf(w, "Warning: %s, next to flows served here, is a state other than the project's, which is %s: its runs are not listed, nor its memory and cache used. Read them with --state %s, or move that directory to %s when the project has no state yet (see docs/runtime.md, \"Where the state lives\").\n",
			other, inUse, other, inUse)
	}
}
