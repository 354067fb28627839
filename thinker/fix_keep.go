package thinker

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/state"
)

// Which instances a fix's check runs. The run is resumed with the fix,
// and resuming runs again every step the change reaches, all its
// instances: a fix of a for_each step's block, for the items that failed,
// runs again for the items that succeeded too. That is what the check
// should do: a fix must not break what worked, and the proposal then
// shows that it does not (its evidence names those instances,
// "rechecked"). It costs the step's work again, in the sandbox: code
// blocks reach no host.
//
// But for a step whose instances reach outside when they run — one that
// calls a model (the llm block, a block of runtime llm), the network
// (http, scrape), an MCP server's tool, that waits for a person's decision
// (approval), or that uses a flow with such a step — running them again
// would call the model once per item that already succeeded, send the
// hosts their requests again (a POST twice), or wait for a person who is
// not there. Its instances that succeeded keep what they recorded
// (runtime.Options.KeepSucceeded), and the evidence says they were kept,
// not checked ("kept", "kept_because"); its failed instances run with the
// fix as any others do.

// keepOnCheck are the steps of the fixed flow prog, among those the fix
// changes that finished in the run (changed: runtime.ResumeChanged), whose
// instances that succeeded are kept when the fix is checked, each with why.
func keepOnCheck(prog *compiler.Program, changed []string) map[string]string {
	out := map[string]string{}
	for _, name := range changed {
		if s := prog.StepsByName[name]; s != nil {
			if why := reachesOutside(s, map[*compiler.Program]bool{}); why != "" {
				out[name] = why
			}
		}
	}
	return out
}

// reachesOutside says what a step does outside the sandbox when it runs,
// as "it calls a model"; "" when nothing.
func reachesOutside(s *compiler.Step, seen map[*compiler.Program]bool) string {
	if s.Block != nil {
		if s.Block.Builtin() && s.Block.Name == "approval" {
			return "it waits for a person's decision"
		}
		switch s.Block.Reaches() {
		case blocks.RemoteModel:
			return "it calls a model"
		case blocks.RemoteMCP:
			return "it calls a tool of an MCP server"
		case blocks.RemoteNetwork:
			return "it reaches the network (" + s.Block.Name + ")"
		}
	}
	if f := s.Flow; f != nil && !seen[f] {
		seen[f] = true
		for _, fs := range f.Steps {
			if why := reachesOutside(fs, seen); why != "" {
				return fmt.Sprintf("it uses flow %q, whose step %s %s", f.Flow.Name, fs.Name, strings.TrimPrefix(why, "it "))
			}
		}
	}
	return ""
}

// evidenceNames is the most instances a list of FixEvidence names; its
// count field has them all.
const evidenceNames = 1000

// checkedInstances are the step instances a check's run ended: those it
// ran, and those it kept with what they recorded (runtime.StepFinished's
// Resumed). Observe is the run's observer.
type checkedInstances struct {
	prog       *compiler.Program
	mu         sync.Mutex
	ran, kept  []stepInstance
	keptOfStep map[string]bool // the steps whose kept instances count
}

type stepInstance struct {
	step string
	at   int // the step's index in the program
	key  runtime.Key
}

func (c *checkedInstances) Observe(e runtime.Event) {
	f, ok := e.(runtime.StepFinished)
	if !ok || f.Status == runtime.StatusSkipped {
		return
	}
	si := stepInstance{step: f.Step, key: f.Instance}
	if s := c.prog.StepsByName[f.Step]; s != nil {
		si.at = s.Index
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case !f.Resumed:
		c.ran = append(c.ran, si)
	case c.keptOfStep[f.Step]:
		c.kept = append(c.kept, si)
	}
}

// names are instances as the evidence names them (instanceName), in the
// program's order of steps and each step's order of keys.
func (c *checkedInstances) names(list []stepInstance) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	slices.SortFunc(list, func(a, b stepInstance) int {
		if a.at != b.at {
			return cmp.Compare(a.at, b.at)
		}
		ai, aok := a.key.JSON().(int64)
		bi, bok := b.key.JSON().(int64)
		if aok && bok {
			return cmp.Compare(ai, bi)
		}
		return strings.Compare(a.key.String(), b.key.String())
	})
	out := make([]string, len(list))
	for i, si := range list {
		out[i] = instanceName(&state.StepResult{Step: si.step, Instance: si.key.String()})
	}
	return out
}

// capNames is at most evidenceNames of names.
func capNames(names []string) []string {
	if len(names) > evidenceNames {
		return names[:evidenceNames]
	}
	return names
}
