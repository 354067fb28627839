package arguments

import (
	"strings"
	"time"

	"github.com/flowctl/flowctl/lang"
	"github.com/spf13/pflag"
)

// The flag groups that several commands share.

// Registries are the --registry directories of a command: the
// *.block.hcl files in them are blocks, beside the built-in ones.
type Registries []string

// Flags adds --registry, with the help of most commands.
func (r *Registries) Flags(fs *pflag.FlagSet) { r.FlagsFor(fs, "add to the registry") }

// FlagsFor adds --registry, whose help says what the blocks are for: to
// add to the registry, to search and use, ….
func (r *Registries) FlagsFor(fs *pflag.FlagSet, what string) {
	fs.StringArrayVar((*[]string)(r), "registry", nil, "a directory of *.block.hcl files to "+what+" (repeatable)")
}

// Inputs are the --input and --input-file flags of plan, apply and watch.
type Inputs struct {
	Pairs []string // --input NAME=VALUE
	Files []string // --input-file
}

// Flags adds --input and --input-file.
func (f *Inputs) Flags(fs *pflag.FlagSet) {
	fs.StringArrayVar(&f.Pairs, "input", nil, "set an input: NAME=VALUE, VALUE an HCL literal or else a string (repeatable)")
	fs.StringArrayVar(&f.Files, "input-file", nil, "read input values from a file: JSON (*.json, one object) or HCL attributes (name = \"ada\", as a .tfvars file; any other name) (repeatable)")
}

// Args checks that each --input has the form NAME=VALUE.
func (f *Inputs) Args() error {
	for _, pair := range f.Pairs {
		if name, _, ok := strings.Cut(pair, "="); !ok || name == "" {
			return Usagef("--input %q must have the form NAME=VALUE", pair)
		}
	}
	return nil
}

// Store is how the commands that run flows (plan, apply, watch, worker,
// serve, mcp) open a shared state: whether they may upgrade its schema,
// and how long they wait for it when it stops answering.
type Store struct {
	Migrate bool          // --migrate
	Wait    time.Duration // --state-wait; 0: the default
}

// Flags adds --migrate and --state-wait.
func (f *Store) Flags(fs *pflag.FlagSet) {
	fs.BoolVar(&f.Migrate, "migrate", false, "upgrade the schema of a shared (postgres://) state older than this flowctl's, as flowctl state migrate does")
	fs.DurationVar(&f.Wait, "state-wait", 0, "how long a run waits, starting no step, for a shared state that stopped answering before it fails (default: $"+EnvStateWait+", else "+durationText(DefaultStateWait)+")")
}

// Args refuses a negative --state-wait.
func (f *Store) Args() error {
	if f.Wait < 0 {
		return Usagef("--state-wait must be a positive duration")
	}
	return nil
}

// State locates the state of the runs and output commands.
type State struct {
	Dir  string // --state
	Flow string // --flow: only the runs of this flow
}

// Flags adds --state and --flow.
func (f *State) Flags(fs *pflag.FlagSet) {
	fs.StringVar(&f.Dir, "state", "", stateHelp)
	fs.StringVar(&f.Flow, "flow", "", "a flow file or directory: only its runs (in the state of its project)")
}

// Engine chooses where runs run: --engine, and Temporal's address,
// namespace and task queue. An empty Engine is FLOWCTL_ENGINE's, else
// local, decided when the command runs.
type Engine struct {
	Engine, Address, Namespace, TaskQueue string
}

// Flags adds the flags.
func (e *Engine) Flags(fs *pflag.FlagSet) {
	fs.StringVar(&e.Engine, "engine", "", "where runs run: local (this process) or temporal (default: "+EnvEngine+", else local)")
	e.TemporalFlags(fs, "with --engine temporal")
	fs.StringVar(&e.TaskQueue, "task-queue", DefaultTaskQueue, "with --engine temporal: the task queue of the workers")
}

// TemporalFlags adds the flags that say where Temporal is: --address and
// --temporal-namespace; when tells when they matter.
func (e *Engine) TemporalFlags(fs *pflag.FlagSet, when string) {
	fs.StringVar(&e.Address, "address", "", when+": the Temporal frontend's HOST:PORT (default: TEMPORAL_ADDRESS, else "+DefaultTemporalAddress+")")
	fs.StringVar(&e.Namespace, TemporalNamespaceFlag, "", when+": the Temporal namespace (default: TEMPORAL_NAMESPACE, else default)")
}

// Log is --log-format, of the commands that run as services (serve, mcp
// --http, worker).
type Log struct{ Format string }

// Flags adds --log-format.
func (f *Log) Flags(fs *pflag.FlagSet) {
	fs.StringVar(&f.Format, "log-format", "text", "the log's format on standard error: text (key=value) or json")
}

// Args checks the format.
func (f *Log) Args() error {
	switch f.Format {
	case "text", "", "json":
		return nil
	}
	return Usagef("unknown --log-format %q: use text or json", f.Format)
}

// Tokens are --token-file and --tokens-file.
type Tokens struct {
	TokenFile, TokensFile string
}

// Flags adds the flags; prefix begins their help.
func (f *Tokens) Flags(fs *pflag.FlagSet, prefix string) {
	fs.StringVar(&f.TokenFile, "token-file", "", prefix+"a file holding the bearer token, which may do everything (default: "+EnvToken+")")
	fs.StringVar(&f.TokensFile, "tokens-file", "", prefix+"a file of named tokens with roles, a line each: NAME ROLES TOKEN (see docs/serve.md)")
}

// Args refuses both flags at once.
func (f *Tokens) Args() error {
	if f.TokenFile != "" && f.TokensFile != "" {
		return Usagef("give --token-file or --tokens-file, not both")
	}
	return nil
}

// TLS is --tls-cert and --tls-key: with both, HTTPS.
type TLS struct{ Cert, Key string }

// Flags adds the flags; prefix begins their help.
func (f *TLS) Flags(fs *pflag.FlagSet, prefix string) {
	fs.StringVar(&f.Cert, "tls-cert", "", prefix+"serve HTTPS with this certificate (PEM; with --tls-key)")
	fs.StringVar(&f.Key, "tls-key", "", prefix+"the private key (PEM) of --tls-cert")
}

// Args refuses one of the two without the other.
func (f *TLS) Args() error {
	if (f.Cert == "") != (f.Key == "") {
		return Usagef("--tls-cert and --tls-key go together")
	}
	return nil
}

// Dir are the flags of a command that serves the flows under DIR (serve,
// mcp): the state and the executors of apply, and a bearer token and TLS
// for HTTP.
type Dir struct {
	State, Sandbox, GoEngine string
	Registries               Registries
	HTTPAllow                []string
	Tokens                   Tokens
	TLS                      TLS
	Log                      Log
	Unconfined               bool
	Store                    Store // --migrate, --state-wait
	// NoRecordPrompts is --no-record-prompts: the runs' model calls are
	// not kept in the state.
	NoRecordPrompts bool
}

// Flags adds the flags; listening prefixes the help of those that matter
// only when the command listens on HTTP.
func (f *Dir) Flags(fs *pflag.FlagSet, listening string) {
	fs.StringVar(&f.State, "state", "", stateHelp+"; DIR counts as the working directory")
	f.Tokens.Flags(fs, listening)
	f.TLS.Flags(fs, listening)
	f.Log.Flags(fs)
	f.Registries.Flags(fs)
	fs.StringVar(&f.Sandbox, "sandbox", SandboxIsolated, "where go and js blocks run: isolated or inprocess")
	fs.StringVar(&f.GoEngine, "go-engine", "", goEngineUsage)
	fs.BoolVar(&f.Unconfined, "unconfined", false, unconfinedUsage)
	fs.StringArrayVar(&f.HTTPAllow, "http-allow", nil, "where http and scrape steps may connect, as for apply")
	fs.BoolVar(&f.NoRecordPrompts, "no-record-prompts", false, "keep the runs' model calls (their messages and replies) out of the state, as a flow's record_prompts = false does (default: recorded, as the runs' outputs are)")
	f.Store.Flags(fs)
}

// Args checks --engine when it is given (FLOWCTL_ENGINE is read when
// the command runs).
func (e *Engine) Args() error {
	switch e.Engine {
	case "", EngineLocal, EngineTemporal:
		return nil
	}
	return Usagef("unknown engine %q: use local or temporal", e.Engine)
}

// checkSandbox checks a --sandbox value.
func checkSandbox(sandbox string) error {
	if sandbox != SandboxIsolated && sandbox != SandboxInProcess {
		return Usagef("unknown --sandbox %q: use isolated or inprocess", sandbox)
	}
	return nil
}

// checkGoEngine checks a --go-engine value ("" is FLOWCTL_GO_ENGINE's,
// read when the command runs, else each block's own).
func checkGoEngine(engine string) error {
	if engine != "" && engine != lang.EngineInterpreted && engine != lang.EngineCompiled {
		return Usagef("unknown --go-engine %q: use interpreted or compiled", engine)
	}
	return nil
}

// Args checks the flags of a command that serves DIR; listening says
// whether it listens on HTTP, where the token and TLS flags matter.
func (f *Dir) Args(listening bool) error {
	if listening {
		if err := f.Tokens.Args(); err != nil {
			return err
		}
		if err := f.TLS.Args(); err != nil {
			return err
		}
	}
	if err := f.Log.Args(); err != nil {
		return err
	}
	if err := checkSandbox(f.Sandbox); err != nil {
		return err
	}
	if err := checkGoEngine(f.GoEngine); err != nil {
		return err
	}
	return f.Store.Args()
}

// JSONRequested reports whether the command was asked for JSON output
// (--json, or --format json). The flags may not have been parsed when the
// command line has a mistake, so the words of args are read too.
func JSONRequested(flags *pflag.FlagSet, args []string) bool {
	hasJSON := flags.Lookup("json") != nil
	hasFormat := flags.Lookup("format") != nil
	if hasJSON {
		if v, err := flags.GetBool("json"); err == nil && v {
			return true
		}
	}
	if hasFormat {
		if v, err := flags.GetString("format"); err == nil && v == "json" {
			return true
		}
	}
	for i, a := range args {
		switch {
		case a == "--":
			return false
		case hasJSON && (a == "--json" || a == "--json=true" || a == "--json=1"):
			return true
		case hasFormat && (a == "--format=json" || (a == "--format" && i+1 < len(args) && args[i+1] == "json")):
			return true
		}
	}
	return false
}
