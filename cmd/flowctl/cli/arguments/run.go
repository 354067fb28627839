package arguments

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// Run are the flags of the commands that evaluate a flow with values:
// plan, apply and watch, and those of explain, approve and worker that
// run steps.
type Run struct {
	flagSet
	Inputs     Inputs
	Registries Registries
	State      string // --state
	Namespace  string // --namespace: the memory namespace
	// NamespaceSet says --namespace was given (a saved plan's is used
	// otherwise).
	NamespaceSet bool
	Secrets      []string // --secret NAME=VALUE
	// SecretValues are the --secret values by name, read by Args.
	SecretValues map[string]string
	NoCache      bool // --no-cache
	// ResetMemory starts memories whose stored values cannot be read
	// over from their defaults.
	ResetMemory bool
	LogPrompts  string // --log-prompts
	Sandbox     string // --sandbox
	GoEngine    string // --go-engine; "": FLOWCTL_GO_ENGINE, else each block's own
	HTTPAllow   []string
	// HTTPConns is --http-conns-per-host; FLOWCTL_HTTP_CONNS_PER_HOST,
	// then the blocks' default, when 0.
	HTTPConns int
	// Parallelism is --parallelism: an overall cap on step instances
	// running at once; 0, the default, is none.
	Parallelism int
	Targets     []string // --target
	// KeepSucceeded is --keep-succeeded: with --resume, steps whose
	// instances that succeeded keep their results although the step
	// changed.
	KeepSucceeded []string
	// Upgrade is --upgrade: with --resume, the flow as it is now rather
	// than the version the run started with.
	Upgrade bool
	// MaxTokens and MaxCost are --max-tokens and --max-cost: the run's
	// budget for model calls, instead of the flow's; 0: the flow's.
	MaxTokens  int
	MaxCost    float64
	Verbose    bool          // --verbose: step logs as they come
	Unconfined bool          // --unconfined
	Timeout    time.Duration // --timeout; 0: the flow's
	Store      Store         // --migrate, --state-wait
}

// Flags adds the flags of the commands that evaluate a flow (plan).
func (f *Run) Flags(fs *pflag.FlagSet) {
	f.fs = fs
	f.Inputs.Flags(fs)
	f.Registries.Flags(fs)
	fs.StringVar(&f.State, "state", "", stateHelp)
	fs.StringVar(&f.Namespace, "namespace", "default", "the memory namespace, e.g. one per user")
	fs.StringArrayVar(&f.Secrets, "secret", nil, secretUsage)
	fs.BoolVar(&f.NoCache, "no-cache", false, "run every step; reuse no cached result")
	fs.StringArrayVar(&f.Targets, "target", nil, "run only this step (step.NAME) and the steps it depends on (repeatable)")
	fs.BoolVar(&f.ResetMemory, "reset-corrupt-memory", false, "start a memory whose stored value cannot be read over from its default (a warning), instead of refusing to run")
	f.Store.Flags(fs)
}

// RunFlags adds the flags of the commands that run steps.
func (f *Run) RunFlags(fs *pflag.FlagSet) {
	f.Flags(fs)
	fs.StringVar(&f.LogPrompts, "log-prompts", "", "append one JSON line per LLM round trip (request, response, duration, tokens, error) to this file, sensitive values redacted")
	fs.StringArrayVar(&f.HTTPAllow, "http-allow", nil, "where http and scrape steps may connect: host names, *.domain patterns, addresses or networks such as 10.0.0.0/8 (repeatable, or comma-separated; default: "+EnvHTTPAllow+", else anywhere but link-local addresses)")
	fs.IntVar(&f.HTTPConns, "http-conns-per-host", 0, fmt.Sprintf("how many connections http and scrape steps may have open to one host (default: %s, else %d)", EnvHTTPConns, DefaultConnsPerHost))
	fs.DurationVar(&f.Timeout, "timeout", 0, "fail the run when it has not finished after this long, cancelling its running steps (default: the flow's timeout, else none)")
	fs.IntVar(&f.Parallelism, "parallelism", 0, "at most this many step instances at once (default: no overall cap; code, llm and http steps have limits of their own)")
	fs.StringVar(&f.Sandbox, "sandbox", SandboxIsolated, "where go and js blocks run: isolated (confined worker processes) or inprocess (in flowctl itself, with the same allowlists and timeouts, for reviewed code)")
	fs.StringVar(&f.GoEngine, "go-engine", "", goEngineUsage)
	fs.BoolVar(&f.Unconfined, "unconfined", false, unconfinedUsage)
	fs.BoolVarP(&f.Verbose, "verbose", "v", false, "print what code steps log (console.log, print) as it comes; without it, a failed step shows its last lines")
}

// KeepFlags adds --keep-succeeded, of the commands that resume a run
// (apply --resume) or plan resuming it (plan --resume).
func (f *Run) KeepFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&f.Upgrade, "upgrade", false, "with --resume: resume with the flow's files as they are now, not the version the run started with")
	fs.StringArrayVar(&f.KeepSucceeded, "keep-succeeded", nil, "with --resume: the instances of this step (step.NAME) that succeeded keep their results although the step changed since; only the others run (repeatable)")
}

// BudgetFlags adds --max-tokens and --max-cost, of apply.
func (f *Run) BudgetFlags(fs *pflag.FlagSet) {
	fs.IntVar(&f.MaxTokens, "max-tokens", 0, "the run's budget of model tokens (prompt and completion): no request is sent that would pass it (default: the flow's max_tokens, else none)")
	fs.Float64Var(&f.MaxCost, "max-cost", 0, "the run's budget in US dollars at its models' prices: no request is sent that would pass it (default: the flow's max_cost_usd, else none)")
}

// Args checks the flags and reads the --secret values.
func (f *Run) Args() error {
	if f.Parallelism < 0 {
		return Usagef("--parallelism must be 0 (no cap) or more")
	}
	if f.MaxTokens < 0 || f.MaxCost < 0 {
		return Usagef("--max-tokens and --max-cost must be above 0")
	}
	f.SecretValues = map[string]string{}
	for _, pair := range f.Secrets {
		name, val, ok := strings.Cut(pair, "=")
		if !ok || name == "" {
			return Usagef("--secret must have the form NAME=VALUE")
		}
		f.SecretValues[name] = val
	}
	if err := checkGoEngine(f.GoEngine); err != nil {
		return err
	}
	f.NamespaceSet = f.changed("namespace")
	if err := f.Inputs.Args(); err != nil {
		return err
	}
	if f.HTTPConns < 0 {
		return Usagef("--http-conns-per-host must be at least 1")
	}
	if f.Sandbox != "" { // plan's is none: it runs nothing
		if err := checkSandbox(f.Sandbox); err != nil {
			return err
		}
	}
	return f.Store.Args()
}
