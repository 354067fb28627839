package arguments

import (
	"regexp"
	"strings"

	"github.com/spf13/pflag"
)

// Eval is eval [PATH].
type Eval struct {
	Path       string   // PATH: an eval file or a directory; "." when none is given
	Variants   []string // --variant NAME (repeatable)
	Only       string   // --only REGEX, as given
	OnlyRE     *regexp.Regexp
	Limit      int  // --limit N
	Repeat     int  // --repeat N
	JSON       bool // --json
	State      string
	Secrets    []string
	SecretMap  map[string]string // --secret values by name, read by Args
	Registries Registries
	Sandbox    string // --sandbox
	GoEngine   string // --go-engine
	Unconfined bool   // --unconfined
	LogPrompts string // --log-prompts
	// Parallelism is --parallelism: cases at once; 0: the default.
	Parallelism int
	Store       Store
	Outputs     EvalOutputs // --baseline, --junit, --report
}

// Flags adds eval's flags.
func (a *Eval) Flags(fs *pflag.FlagSet) {
	fs.StringArrayVar(&a.Variants, "variant", nil, "run only this variant (repeatable; default: every variant)")
	fs.StringVar(&a.Only, "only", "", "run only the cases whose name, VARIANT/ROW (ROW: the row's id or name field, else its number from 1), matches this regular expression")
	fs.IntVar(&a.Limit, "limit", 0, "run only the dataset's first N rows (default: all)")
	fs.IntVar(&a.Repeat, "repeat", 1, "run each case N times, each with results of its own in the cache, and report pass^N (the share of rows that passed every time)")
	fs.IntVar(&a.Parallelism, "parallelism", 0, "how many cases run at once (default: 8 per processor; the providers' limits bound model calls further)")
	fs.BoolVar(&a.JSON, "json", false, "print one JSON line a case as it finishes, then one of each eval's summary")
	fs.StringVar(&a.State, "state", "", stateHelp)
	fs.StringArrayVar(&a.Secrets, "secret", nil, secretUsage)
	a.Registries.Flags(fs)
	fs.StringVar(&a.Sandbox, "sandbox", SandboxIsolated, "where go and js blocks run: isolated (worker processes) or inprocess (in flowctl itself, with the same allowlists and timeouts, for reviewed code)")
	fs.StringVar(&a.GoEngine, "go-engine", "", goEngineUsage)
	fs.BoolVar(&a.Unconfined, "unconfined", false, unconfinedUsage)
	fs.StringVar(&a.LogPrompts, "log-prompts", "", "append one JSON line per LLM round trip to this file, sensitive values redacted")
	a.Store.Flags(fs)
	a.Outputs.Flags(fs)
}

// Args reads the path and checks the flags.
func (a *Eval) Args(args []string) error {
	if len(args) > 1 {
		return Usagef("eval takes one PATH: an eval file (*.eval.hcl) or a directory")
	}
	a.Path = oneOr(args, ".")
	if a.Only != "" {
		re, err := regexp.Compile(a.Only)
		if err != nil {
			return Usagef("--only %q is not a regular expression: %v", a.Only, err)
		}
		a.OnlyRE = re
	}
	switch {
	case a.Limit < 0:
		return Usagef("--limit must be at least 1")
	case a.Repeat < 1:
		return Usagef("--repeat must be at least 1")
	case a.Parallelism < 0:
		return Usagef("--parallelism must be at least 1")
	}
	a.SecretMap = map[string]string{}
	for _, pair := range a.Secrets {
		name, val, ok := strings.Cut(pair, "=")
		if !ok || name == "" {
			return Usagef("--secret must have the form NAME=VALUE")
		}
		a.SecretMap[name] = val
	}
	if err := checkSandbox(a.Sandbox); err != nil {
		return err
	}
	if err := checkGoEngine(a.GoEngine); err != nil {
		return err
	}
	if err := a.Outputs.Check(); err != nil {
		return err
	}
	return a.Store.Args()
}
