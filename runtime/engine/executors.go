package engine

import (
	"fmt"
	"io"
	"math"
	"os"
	goruntime "runtime"
	"strconv"
	"strings"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/llm"
	"github.com/flowctl/flowctl/blocks/retrieval"
	"github.com/flowctl/flowctl/blocks/sandbox/gorun"
	"github.com/flowctl/flowctl/blocks/sandbox/isolate"
	"github.com/flowctl/flowctl/blocks/sandbox/jsrun"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
)

// Options choose how the executors run blocks.
type Options struct {
	// LogPrompts, when set, receives a JSON line per LLM round trip.
	LogPrompts io.Writer
	Sandbox    string   // SandboxIsolated or SandboxInProcess
	GoEngine   string   // --go-engine: "" (each block's own), interpreted or compiled
	HTTPAllow  []string // --http-allow; FLOWCTL_HTTP_ALLOW when empty
	HTTPConns  int      // --http-conns-per-host; FLOWCTL_HTTP_CONNS_PER_HOST when 0
	// Warnings receives the sandbox's notices of the confinement layers
	// this system lacks.
	Warnings io.Writer
	// Unconfined is --unconfined: python and compiled go blocks run where
	// their workers cannot be confined (also FLOWCTL_UNCONFINED=1).
	Unconfined bool
	// Warm, when set, is the program about to run: the sandbox starts the
	// workers its js and interpreted go blocks need (WarmWorkers) while
	// the run is being set up.
	Warm *compiler.Program
}

// Sandbox modes for code blocks (--sandbox).
const (
	SandboxIsolated  = lang.SandboxIsolated
	SandboxInProcess = lang.SandboxInProcess
)

// Environment variables of the http and scrape blocks.
const (
	EnvHTTPTimeout = "FLOWCTL_HTTP_TIMEOUT"
	EnvHTTPAllow   = "FLOWCTL_HTTP_ALLOW"
	EnvHTTPConns   = "FLOWCTL_HTTP_CONNS_PER_HOST"
)

// HTTPOptions reads the HTTP options from the flags and the environment.
func HTTPOptions(allow []string, conns int, lookup func(string) (string, bool)) (blocks.HTTPOptions, error) {
	var o blocks.HTTPOptions
	switch {
	case conns < 0:
		return o, settingf("--http-conns-per-host must be at least 1")
	case conns > 0:
		o.ConnsPerHost = conns
	default:
		if v, ok := lookup(EnvHTTPConns); ok && v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return o, settingf("%s must be a whole number of at least 1, not %q", EnvHTTPConns, v)
			}
			o.ConnsPerHost = n
		}
	}
	if v, ok := lookup(EnvHTTPTimeout); ok && v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return o, settingf("%s must be a duration such as 60s or 2m, not %q", EnvHTTPTimeout, v)
		}
		o.Timeout = d
	}
	spec := strings.Join(allow, ",")
	if len(allow) == 0 {
		spec, _ = lookup(EnvHTTPAllow)
	}
	if spec != "" {
		e, err := blocks.ParseEgress(spec)
		if err != nil {
			return o, settingf("the HTTP allow list (--http-allow or %s): %s", EnvHTTPAllow, err)
		}
		o.Egress = e
	}
	return o, nil
}

// Executors are the executors of this build: the built-ins, and one LLM
// executor (configured from the environment) for the llm built-in and llm
// blocks, so that they share its concurrency and rate limits. The returned
// function releases what the executors hold (sandbox worker processes);
// call it when the run is over.
func Executors(o Options) (*blocks.Executors, func(), error) {
	cfg, err := llm.ConfigFromEnv(os.LookupEnv)
	if err != nil {
		return nil, nil, settingf("%s", err)
	}
	cfg.LogPrompts = o.LogPrompts
	model := llm.NewExecutor(cfg)
	hopts, err := HTTPOptions(o.HTTPAllow, o.HTTPConns, os.LookupEnv)
	if err != nil {
		return nil, nil, err
	}
	b := retrieval.With(blocks.BuiltinExecutorsWith(hopts))
	b["llm"] = model
	ex := &blocks.Executors{Builtins: b, Runtimes: map[string]blocks.Executor{lang.RuntimeLLM: model}}
	if o.Sandbox != SandboxIsolated && o.Sandbox != SandboxInProcess {
		return nil, nil, settingf("unknown --sandbox %q: use isolated or inprocess", o.Sandbox)
	}
	if err := CheckGoEngine(o.GoEngine); err != nil {
		return nil, nil, err
	}
	size, err := SandboxWorkers(os.LookupEnv)
	if err != nil {
		return nil, nil, err
	}
	// The pool starts no worker until a call needs one; compiled go
	// blocks run there whatever --sandbox says.
	unconfined := o.Unconfined || os.Getenv(isolate.EnvUnconfined) == "1"
	if missing := isolate.Unconfinable(); unconfined && len(missing) > 0 && o.Warnings != nil {
		fmt.Fprintf(o.Warnings, "Warning: python and compiled go blocks run unconfined on %s (--unconfined), with no %s: their code can use your files, the network and other processes.\n",
			isolate.Platform(), isolate.JoinOr(missing))
	}
	pool := isolate.New(isolate.Options{Size: size, Unconfined: unconfined, Notice: func(msg string) {
		if o.Warnings != nil {
			fmt.Fprintf(o.Warnings, "Warning: %s.\n", msg)
		}
	}})
	ro := isolate.RouteOptions{GoEngine: o.GoEngine, InProcess: o.Sandbox == SandboxInProcess}
	ex.Runtimes[lang.RuntimeGo] = isolate.Route(pool, InProcess(gorun.NewExecutor()), ro)
	ex.Runtimes[lang.RuntimeJS] = isolate.Route(pool, InProcess(jsrun.NewExecutor()), ro)
	ex.Runtimes[lang.RuntimePython] = isolate.Route(pool, nil, ro) // always in the pool
	if o.Warm != nil && !ro.InProcess {
		pool.Prestart(WarmWorkers(o.Warm, o.GoEngine))
	}
	if o.Warm != nil {
		pool.PreparePackages(o.Warm.Registry.All())
	}
	return ex, func() { pool.Close() }, nil
}

// WarmWorkers is how many sandbox workers a program's js and interpreted
// go blocks want at once: none without such a step, as many as the pool
// may have for a for_each of them, else one. Subflows' steps count too.
func WarmWorkers(prog *compiler.Program, goEngine string) int {
	n := 0
	for _, s := range prog.Steps {
		if s.Flow != nil {
			n = max(n, WarmWorkers(s.Flow, goEngine))
			continue
		}
		def := s.Block.Def
		if def == nil || !(def.Runtime == lang.RuntimeJS || def.Runtime == lang.RuntimeGo && !def.Compiled(goEngine)) {
			continue
		}
		if s.ForEach != nil {
			return math.MaxInt32 // Prestart keeps to the pool's size
		}
		n = 1
	}
	return n
}

// CheckGoEngine checks a --go-engine value ("" is each block's own).
func CheckGoEngine(engine string) error {
	if engine != "" && engine != lang.EngineInterpreted && engine != lang.EngineCompiled {
		return settingf("unknown --go-engine %q: use interpreted or compiled", engine)
	}
	return nil
}

// EnvGoEngine is the default of --go-engine.
const EnvGoEngine = "FLOWCTL_GO_ENGINE"

// ResolveGoEngine is the engine of a --go-engine flag's value: the value,
// else $FLOWCTL_GO_ENGINE, else "" (each block's own), checked.
func ResolveGoEngine(flag string) (string, error) {
	if flag == "" {
		flag = os.Getenv(EnvGoEngine)
		if err := CheckGoEngine(flag); err != nil {
			return "", settingf("%s must be interpreted or compiled, not %q", EnvGoEngine, flag)
		}
	}
	return flag, CheckGoEngine(flag)
}

// InProcess bounds code run in flowctl's own process to one call per
// processor, as the sandbox's pool bounds its workers: code computes, and
// more calls at once than processors only add interpreters.
func InProcess(e blocks.Executor) blocks.Executor {
	return blocks.Limit(e, goruntime.GOMAXPROCS(0))
}

// EnvSandboxWorkers sets how many sandbox worker processes run code at
// once (default: the number of CPUs, at least 2).
const EnvSandboxWorkers = "FLOWCTL_SANDBOX_WORKERS"

// SandboxWorkers is the size of the sandbox's pool that
// FLOWCTL_SANDBOX_WORKERS sets; 0, the pool's default, when it is unset.
func SandboxWorkers(lookup func(string) (string, bool)) (int, error) {
	v, ok := lookup(EnvSandboxWorkers)
	if !ok || v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, settingf("%s must be a whole number of at least 1, not %q", EnvSandboxWorkers, v)
	}
	return n, nil
}

// OpenPromptLog opens the --log-prompts file for appending; nil for no
// path.
func OpenPromptLog(path string) (io.WriteCloser, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening the prompt log: %w", err)
	}
	return f, nil
}

// ExecutorsLogging are Executors that log each LLM round trip to the
// file promptLog (--log-prompts; "" for none), opened for appending; the
// function returned releases the executors and closes the log.
func ExecutorsLogging(o Options, promptLog string) (*blocks.Executors, func(), error) {
	logFile, err := OpenPromptLog(promptLog)
	if err != nil {
		return nil, nil, err
	}
	closeLog := func() {
		if logFile != nil {
			logFile.Close()
		}
	}
	if logFile != nil {
		o.LogPrompts = logFile
	}
	ex, release, err := Executors(o)
	if err != nil {
		closeLog()
		return nil, nil, err
	}
	return ex, func() { release(); closeLog() }, nil
}
