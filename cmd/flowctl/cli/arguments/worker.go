package arguments

import "github.com/spf13/pflag"

// Worker is worker --engine temporal [DIR].
type Worker struct {
	flagSet
	Engine Engine
	Run    Run // the flags of the flows' runs: registries, state, secrets, sandbox
	Log    Log
	// OldNamespace is --namespace, the old name of --temporal-namespace;
	// DeprecatedNamespace says it was given (Engine.Namespace is then
	// its value).
	OldNamespace        string
	DeprecatedNamespace bool
	Dir                 string // DIR; "." when none is given
}

// Flags adds worker's flags.
func (a *Worker) Flags(fs *pflag.FlagSet) {
	a.fs = fs
	a.Engine.Flags(fs)
	fs.StringVar(&a.OldNamespace, "namespace", "", "deprecated: --"+TemporalNamespaceFlag)
	fs.MarkHidden("namespace")
	a.Log.Flags(fs)
	a.Run.Registries.Flags(fs)
	fs.StringVar(&a.Run.State, "state", "", stateHelp+"; DIR counts as the working directory; a postgres:// URL ("+EnvStateURL+") is shared by workers, servers and clients")
	fs.StringArrayVar(&a.Run.Secrets, "secret", nil, secretUsage)
	fs.StringVar(&a.Run.Sandbox, "sandbox", SandboxIsolated, "where go and js blocks run: isolated or inprocess")
	fs.StringVar(&a.Run.GoEngine, "go-engine", "", goEngineUsage)
	fs.BoolVar(&a.Run.Unconfined, "unconfined", false, unconfinedUsage)
	fs.StringArrayVar(&a.Run.HTTPAllow, "http-allow", nil, "where http and scrape steps may connect (as apply's --http-allow)")
	a.Run.Store.Flags(fs)
}

// Args reads DIR and checks the flags. That the engine is temporal, which
// FLOWCTL_ENGINE may say, is checked when the command runs.
func (a *Worker) Args(args []string) error {
	if err := maxArgs(args, 1); err != nil {
		return err
	}
	if err := a.Engine.Args(); err != nil {
		return err
	}
	if err := a.Log.Args(); err != nil {
		return err
	}
	if a.changed("namespace") {
		if a.changed(TemporalNamespaceFlag) && a.OldNamespace != a.Engine.Namespace {
			return Usagef("--namespace is the old name of --%s: give one of them", TemporalNamespaceFlag)
		}
		a.Engine.Namespace = a.OldNamespace
		a.DeprecatedNamespace = true
	}
	a.Dir = oneOr(args, ".")
	return a.Run.Args()
}
