package arguments

import (
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/pflag"
)

// Test is test [PATH...].
type Test struct {
	JSON       bool   // --json
	Format     string // --format: human, json or github, decided by Args
	JUnit      string // --junit FILE
	Registries Registries
	Unconfined bool   // --unconfined
	Sandbox    string // --sandbox
	GoEngine   string // --go-engine
	Run        string // --run REGEX, as given
	// Filter is --run compiled; nil runs every flow test.
	Filter      *regexp.Regexp
	Parallelism int      // --parallelism; 0: 4 per processor
	Live        bool     // --live
	HTTPAllow   []string // --http-allow
	Repeat      int      // --repeat
	MinPassRate float64  // --min-pass-rate
	Paths       []string // PATH...; "." when none is given
}

// Flags adds test's flags.
func (a *Test) Flags(fs *pflag.FlagSet) {
	fs.BoolVar(&a.JSON, "json", false, "print the results as one JSON object (--format json)")
	fs.StringVar(&a.Format, "format", "", "output format: human, json, or github (the human report and a workflow command per failure, which GitHub shows as annotations)")
	fs.StringVar(&a.JUnit, "junit", "", "also write the results as JUnit XML to this file, one testsuite per file")
	a.Registries.FlagsFor(fs, "add to the registry and test")
	fs.BoolVar(&a.Unconfined, "unconfined", false, unconfinedUsage)
	fs.StringVar(&a.Sandbox, "sandbox", SandboxIsolated, "where go and js blocks run: isolated (worker processes) or inprocess (in flowctl itself, with the same allowlists and timeouts, for reviewed code)")
	fs.StringVar(&a.GoEngine, "go-engine", "", goEngineUsage)
	fs.StringVar(&a.Run, "run", "", "run only the flow tests whose names match this regular expression")
	fs.IntVar(&a.Parallelism, "parallelism", 0, "how many flow tests run at once (default: 4 per processor; waiting for I/O does not count)")
	fs.BoolVar(&a.Live, "live", false, "let flow tests call models and the network through steps they do not mock")
	fs.StringArrayVar(&a.HTTPAllow, "http-allow", nil, "with --live, where http and scrape steps may connect, as for apply (default: "+EnvHTTPAllow+", else anywhere but link-local addresses)")
	fs.IntVar(&a.Repeat, "repeat", 1, "run each flow test this many times and report its pass count and pass^N (whether every run passed)")
	fs.Float64Var(&a.MinPassRate, "min-pass-rate", 0, "with --repeat, a test passes when at least this fraction of its runs (0 to 1) passed; default: all of them")
}

// Args reads the paths and checks the flags.
func (a *Test) Args(args []string) error {
	if err := checkSandbox(a.Sandbox); err != nil {
		return err
	}
	if err := checkGoEngine(a.GoEngine); err != nil {
		return err
	}
	a.Paths = pathsOrDot(args)
	if a.Run != "" {
		re, err := regexp.Compile(a.Run)
		if err != nil {
			return Usagef("--run %q is not a regular expression: %v", a.Run, err)
		}
		a.Filter = re
	}
	switch {
	case a.Parallelism < 0:
		return Usagef("--parallelism must be at least 1")
	case a.Repeat < 1:
		return Usagef("--repeat must be at least 1")
	case a.MinPassRate < 0 || a.MinPassRate > 1:
		return Usagef("--min-pass-rate must be between 0 and 1")
	}
	switch {
	case a.JSON && a.Format != "" && a.Format != "json":
		return Usagef("--json and --format %s disagree", a.Format)
	case a.JSON:
		a.Format = "json"
	case a.Format == "":
		a.Format = "human"
	case a.Format != "human" && a.Format != "json" && a.Format != "github":
		return Usagef("unknown --format %q: use human, json or github", a.Format)
	}
	return nil
}

// GoStyleRun lets `flowctl test` take -run REGEX, as go test does: the
// flag is --run, and one dash would read as the shorthands -r -u -n.
func GoStyleRun(args []string) []string {
	if len(args) == 0 || args[0] != "test" {
		return args
	}
	out := slices.Clone(args)
	for i, a := range out {
		if a == "--" {
			break
		}
		if a == "-run" || strings.HasPrefix(a, "-run=") {
			out[i] = "-" + a
		}
	}
	return out
}
