package isolate

import (
	"context"
	"os"
	"strings"
	"sync"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/sandbox/deps"
	"github.com/flowctl/flowctl/blocks/sandbox/pyrun"
	"github.com/flowctl/flowctl/lang"
)

// pythonProgram begins the program of a python block's calls (followed by
// the key of its definition): its workers run CPython with the runner of
// package pyrun, and take only that block's calls.
const pythonProgram = "python:"

// pythonSensitive ends the program of a python block's calls given a
// sensitive value.
const pythonSensitive = "+sensitive"

// pythonState is what the pool knows of the interpreter, found once, and
// the environments of the blocks' packages.
type pythonState struct {
	once sync.Once
	w    *pyrun.Worker
	err  error

	depsOnce sync.Once
	deps     *deps.Interpreter
	depsErr  error
	envs     sync.Map // program → *deps.Env
}

// PreparePackages installs, in the background, the environments of the
// locked requirements of the python blocks among bs that the cache lacks,
// so that they are there when the run reaches the blocks (a block's first
// call waits for its install, and says why it failed). What is not locked
// is left for that call to report.
func (p *Pool) PreparePackages(bs []*blocks.Block) {
	for _, b := range bs {
		def := b.Def
		if def == nil || def.Runtime != lang.RuntimePython || len(def.Requirements) == 0 {
			continue
		}
		entry, err := deps.PythonOf(def.DeclRange.Filename, def.Requirements)
		if err != nil {
			continue
		}
		go func() {
			if p.python.ready() != nil {
				return
			}
			if in, err := p.python.interpreter(context.Background()); err == nil {
				in.Install(context.Background(), entry)
			}
		}()
	}
}

// interpreter describes the workers' interpreter to package deps, once.
func (s *pythonState) interpreter(ctx context.Context) (*deps.Interpreter, error) {
	s.depsOnce.Do(func() { s.deps, s.depsErr = deps.Describe(ctx, s.w.Python) })
	return s.deps, s.depsErr
}

// packages returns the environment of a python block's locked
// requirements (package deps), installing it first when the cache lacks
// it: before the block's first call, outside any worker. The lock file is
// the one beside the block's file or in the nearest parent directory.
func (s *pythonState) packages(ctx context.Context, def *lang.BlockDef, program string) error {
	if _, ok := s.envs.Load(program); ok {
		return nil
	}
	entry, err := deps.PythonOf(def.DeclRange.Filename, def.Requirements)
	if err != nil {
		return err
	}
	in, err := s.interpreter(ctx)
	if err != nil {
		return err
	}
	env, err := in.Install(ctx, entry)
	if err != nil {
		return err
	}
	s.envs.Store(program, env)
	return nil
}

// ready finds the interpreter and what its workers may read, once.
func (s *pythonState) ready() error {
	s.once.Do(func() {
		interp, err := pyrun.Find()
		if err != nil {
			s.err = err
			return
		}
		s.w, s.err = interp.Worker()
	})
	return s.err
}

// rulesetFD is a confined python worker's file descriptor of the Landlock
// ruleset it enforces on itself, after the protocol's pipes.
const rulesetFD = replyFD + 1

// pythonCommand is the command line of a python block's worker, and the
// files it inherits after the protocol's pipes. The pool starts the
// interpreter itself, with the runner: no sandbox worker comes first (the
// flowctl binary's start-up would cost more than the interpreter's), and
// the runner confines itself before it reads a request, refusing to run
// when it cannot (see pythonConfinement), in namespaces of its own when
// asked.
func (p *Pool) pythonCommand(l limits, namespaces bool) (args []string, extra []*os.File, err error) {
	w := p.python.w
	if l.packages != nil {
		w = w.WithPackages(l.packages.Dir, l.packages.Modules, l.packages.Libraries)
	}
	cfg := pyrun.RunnerConfig{Memory: l.memory, CPU: l.cpu, Landlock: -1, Missing: unconfined, NoAudit: l.noAudit, Unconfined: true}
	if !l.noConfine {
		var ruleset *os.File
		if cfg, ruleset, err = pythonConfinement(l, w); err != nil {
			return nil, nil, err
		}
		extra = []*os.File{ruleset}
		switch p.opts.breakConfinement {
		case "landlock": // a file that is no ruleset
			cfg.Landlock = requestFD
		case "rlimit": // a resource there is none of
			cfg.Limits = append(cfg.Limits, pyrun.Limit{Resource: 1 << 20, Max: 1, Name: "a limit that cannot be set"})
		}
	}
	// The runner makes its namespaces itself (unshare): the pool's own
	// would make it fork flowctl's whole address space rather than vfork,
	// and wait for it to be given its user mapping, which takes longer.
	cfg.Namespaces = namespaces && haveNamespaces
	cfg.NoVersions = p.opts.noVersions
	return w.Args(cfg), extra, nil
}

// confinable fails a python or compiled go block's call on a system where
// its workers cannot be confined, unless the pool runs them unconfined.
func (p *Pool) confinable(def *lang.BlockDef, python bool) error {
	missing := confinable(python)
	if len(missing) == 0 || p.opts.Unconfined {
		return nil
	}
	what := "compiled go blocks"
	if python {
		what = "python blocks"
	}
	return unconfinableError(def.Name, what, missing)
}

// workerLimits adds to a worker's limits what makes it a python block's,
// or one that applies no confinement.
func (p *Pool) workerLimits(l *limits, program string) {
	if strings.HasPrefix(program, pythonProgram) {
		l.python, l.exec = true, ""
		l.noAudit = p.opts.noAudit
		if env, ok := p.python.envs.Load(program); ok {
			l.packages = env.(*deps.Env)
		}
	}
	l.noConfine = p.opts.Unconfined && len(confinable(l.python)) > 0
}

// pythonResult turns a python worker's reply into the call's result.
func pythonResult(c *pcall, m *message) (*blocks.Result, error) {
	return pyrun.Finish(c.call.Block.Def, pyrun.Reply{
		Outputs: m.Outputs, Error: m.Error, Line: m.Line, Kind: m.Kind, Timeout: m.Timeout,
	}, c.call.Outputs)
}

// pythonDeath says why a python worker stopped, from what the interpreter
// printed and how it ended, or "" when nothing says.
func pythonDeath(stderr, signal string) string {
	switch {
	case strings.HasPrefix(stderr, "refused to run: "):
		return firstLine(stderr) // it could not confine itself
	case strings.Contains(stderr, "MemoryError") || strings.Contains(stderr, "Cannot allocate memory"):
		return "exceeded its memory limit"
	case strings.Contains(stderr, "Cannot recover from stack overflow") || signal == "SIGSEGV" ||
		strings.Contains(stderr, "maximum recursion depth"):
		return "exceeded its stack limit (the recursion is too deep)"
	}
	return ""
}
