package thinker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/state"
)

// A FixChecker checks the fixes explain is given, each on a copy: the
// flow's directory with the fix's files written over it, and a scratch
// state holding a copy of the run (its record, its steps' results, the
// flow's memory). The fixed flow must compile; then the run is resumed
// there, as apply --resume would resume it, so that the failed steps and
// those after them run again on the recorded results of the others. The
// fix runs with no secret or host the flow as it is on disk (Prog) does
// not already use, and a fix that would need more is not run at all
// (fix_reach.go). The user's files and state are not touched. Close
// removes the copies.
type FixChecker struct {
	Store      *state.Store
	Run        *state.Run
	Prog       *compiler.Program
	Secrets    map[string]string // as given to apply; the others from the environment
	Redactor   *Redactor
	Registries []string
	GoEngine   string
	Timeout    time.Duration
	// HTTP are the options of the executors' http and scrape blocks, whose
	// Egress is the HTTP allow list (nil for none): the fixed steps' http
	// and scrape run confined further (fix_reach.go).
	HTTP blocks.HTTPOptions
	// Executors gives the executors the fixed steps run with; it is
	// called once, when a fix first compiles, and its release is called by
	// Close.
	Executors func() (*blocks.Executors, func(), error)

	mu      sync.Mutex
	ex      *blocks.Executors
	release func()
	tmp     []string
}

// Close releases the executors and removes the copies.
func (c *FixChecker) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.release != nil {
		c.release()
		c.release = nil
	}
	for _, d := range c.tmp {
		os.RemoveAll(d)
	}
	c.tmp = nil
}

// Check is ExplainOptions.Verify.
func (c *FixChecker) Check(ctx context.Context, fix *Fix) (*Verification, error) {
	tmp, err := os.MkdirTemp("", "flowctl-explain-")
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.tmp = append(c.tmp, tmp)
	c.mu.Unlock()
	dir := filepath.Join(tmp, "flow")
	if err := copyFlowDir(c.Prog.Dir, dir); err != nil {
		return nil, fmt.Errorf("copying the flow's directory: %w", err)
	}
	for _, f := range fix.Files {
		path := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(path, []byte(f.Content), 0o644); err != nil {
			return nil, err
		}
	}
	flowFile := filepath.Join(dir, filepath.Base(c.Prog.Filename))
	prog, diags := compiler.Compile(flowFile, compiler.Options{Parser: lang.NewParser(), RegistryDirs: c.Registries, GoEngine: c.GoEngine})
	if diags.HasErrors() {
		return &Verification{Phase: "compile", Problem: diagnosticsText(diags, dir)}, nil
	}

	scratch, err := state.Open(filepath.Join(tmp, "state"))
	if err != nil {
		return nil, err
	}
	defer scratch.Close()
	steps, err := c.Store.Steps(c.Run.ID)
	if err != nil {
		return nil, err
	}
	if err := copyRun(c.Store, scratch, c.Run, steps); err != nil {
		return nil, fmt.Errorf("copying run %s: %w", c.Run.ID, err)
	}
	if err := runtime.ResumeCheck(prog, c.Run, steps); err != nil {
		return &Verification{Phase: "run", Problem: resumeProblem(c.Run, err)}, nil
	}
	inputs, diags := runtime.ResumeInputs(prog, c.Run, nil)
	if diags.HasErrors() {
		return &Verification{Phase: "run", Problem: diagnosticsText(diags, dir)}, nil
	}
	// Nothing the model wrote runs with a secret, or reaches a host, that
	// the accepted flow does not use: such a fix is not run at all.
	policy := newReachPolicy(c.Prog, c.HTTP.Egress)
	if needs := policy.reachProblems(prog); len(needs) > 0 {
		raw, err := json.Marshal(notRunEvidence(steps, needs))
		if err != nil {
			return nil, err
		}
		return &Verification{Phase: "reach", NotVerified: needs, Evidence: raw,
			Problem: "not verified, since nothing of it was run: " + strings.Join(needs, "; ")}, nil
	}
	ex, err := c.executors()
	if err != nil {
		return nil, err
	}
	if ex, err = policy.checkExecutors(ex, c.HTTP); err != nil {
		return nil, err
	}
	secrets, lookupEnv := policy.checkSecrets(prog, c.Secrets)
	// The steps the fix changes run again, all their instances, but for
	// those that reach outside the sandbox (fix_keep.go).
	keep := keepOnCheck(prog, runtime.ResumeChanged(prog, c.Run, steps))
	seen := &checkedInstances{prog: prog, keptOfStep: map[string]bool{}}
	for name := range keep {
		seen.keptOfStep[name] = true
	}
	res, err := runtime.Apply(ctx, prog, runtime.Options{
		Inputs: inputs, Secrets: secrets, LookupEnv: lookupEnv, Namespace: c.Run.Namespace, Store: scratch, Executors: ex,
		RunID: c.Run.ID, Resume: true, NoCache: true, Timeout: c.Timeout,
		KeepSucceeded: slices.Sorted(maps.Keys(keep)), Observe: seen.Observe,
	})
	if err != nil {
		return nil, err
	}
	if res.RunID == "" {
		return &Verification{Phase: "run", Problem: diagnosticsText(res.Diagnostics, dir)}, nil
	}
	scratch.Flush()
	after, err := scratch.Steps(c.Run.ID)
	if err != nil {
		return nil, err
	}
	ev := fixEvidence(steps, after, string(res.Status))
	ranAndKept(&ev, steps, seen, keep)
	raw, err := json.Marshal(ev)
	if err != nil {
		return nil, err
	}
	if res.Status == runtime.StatusOK {
		return &Verification{OK: true, Phase: "run", Evidence: raw}, nil
	}
	return &Verification{Phase: "run", Problem: c.Redactor.Text(stillFailing(steps, after, res)), Evidence: raw}, nil
}

func (c *FixChecker) executors() (*blocks.Executors, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ex == nil {
		if c.Executors == nil {
			return nil, fmt.Errorf("no executors to run the fixed steps with")
		}
		ex, release, err := c.Executors()
		if err != nil {
			return nil, err
		}
		c.ex, c.release = ex, release
	}
	return c.ex, nil
}

// ranAndKept records in ev what the check ran and kept (seen), of the
// run's recorded steps before, and why the steps of keep kept theirs.
func ranAndKept(ev *FixEvidence, before []*state.StepResult, seen *checkedInstances, keep map[string]string) {
	succeededBefore := map[string]bool{}
	for _, sr := range before {
		if sr.Status == "ok" || sr.Status == "cached" {
			succeededBefore[instanceName(sr)] = true
		}
	}
	ran := seen.names(seen.ran)
	var rechecked []string
	for _, name := range ran {
		if succeededBefore[name] {
			rechecked = append(rechecked, name)
		}
	}
	kept := seen.names(seen.kept)
	ev.Ran, ev.RanCount = capNames(ran), len(ran)
	ev.Rechecked, ev.RecheckedCount = capNames(rechecked), len(rechecked)
	ev.Kept, ev.KeptCount = capNames(kept), len(kept)
	for _, si := range seen.kept {
		if ev.KeptBecause == nil {
			ev.KeptBecause = map[string]string{}
		}
		ev.KeptBecause[si.step] = keep[si.step]
	}
}

// notRunEvidence is the evidence of a fix that was not run.
func notRunEvidence(before []*state.StepResult, needs []string) FixEvidence {
	ev := FixEvidence{NotVerified: needs, FailedBefore: []string{}, SucceededNow: []string{}, Ran: []string{}, RunStatusWith: "not run"}
	for _, sr := range before {
		if failedStatus(sr.Status) {
			ev.FailedBefore = append(ev.FailedBefore, instanceName(sr))
		}
	}
	return ev
}

func fixEvidence(before, after []*state.StepResult, status string) FixEvidence {
	now := map[string]string{}
	for _, sr := range after {
		now[instanceName(sr)] = sr.Status
	}
	ev := FixEvidence{Verified: status == string(runtime.StatusOK), FailedBefore: []string{}, SucceededNow: []string{}, RunStatusWith: status}
	for _, sr := range before {
		if !failedStatus(sr.Status) {
			continue
		}
		name := instanceName(sr)
		ev.FailedBefore = append(ev.FailedBefore, name)
		if s := now[name]; s == "ok" || s == "cached" {
			ev.SucceededNow = append(ev.SucceededNow, name)
		} else {
			ev.StillFailing = append(ev.StillFailing, name)
		}
	}
	return ev
}

func instanceName(sr *state.StepResult) string {
	if sr.Instance != "" {
		return sr.Step + "[" + sr.Instance + "]"
	}
	return sr.Step
}

// stillFailing says why a resumed run with a fix did not succeed: the
// errors of its failed steps, with the end of their logs, each saying
// whether it failed in the run too or succeeded there (the fix breaks it).
func stillFailing(before, after []*state.StepResult, res *runtime.Result) string {
	was := map[string]string{}
	for _, sr := range before {
		was[instanceName(sr)] = sr.Status
	}
	var parts []string
	for _, sr := range after {
		if sr.Status != "failed" {
			continue
		}
		name := instanceName(sr)
		var p string
		switch was[name] {
		case "ok", "cached":
			p = fmt.Sprintf("step %s succeeded in the run but fails with the fix: %s", name, sr.Error)
		case "failed", "cancelled", "interrupted":
			p = fmt.Sprintf("step %s failed again: %s", name, sr.Error)
		default:
			p = fmt.Sprintf("step %s failed: %s", name, sr.Error)
		}
		if sr.Log != "" {
			p += " (log: " + tail(sr.Log, 600) + ")"
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return fmt.Sprintf("the run ended %s with the fix", res.Status)
	}
	return strings.Join(parts, "; ")
}

// resumeProblem is, for the model, why the run cannot be resumed with a
// fix (runtime.ResumeCheck's err): a fix may change any step, one that
// finished too (it runs again), but the run must stay the same flow's,
// with the steps that finished in it.
func resumeProblem(run *state.Run, err error) string {
	msg := strings.TrimSuffix(err.Error(), ".")
	if errors.Is(err, runtime.ErrFlowChanged) && len(run.Fingerprints) == 0 {
		return msg + "; no change to the flow can be checked on this run, so give the diagnosis with fix null"
	}
	return msg + "; a fix may change any step, one that finished in the run too (it runs again with the fix), but it must keep the flow's name and every step that finished in the run"
}

// diagnosticsText is diagnostics one per line, with paths from the flow's
// directory.
func diagnosticsText(diags interface{ Error() string }, dir string) string {
	return strings.ReplaceAll(diags.Error(), dir+string(filepath.Separator), "")
}

// copyRun copies a run's record, its steps' results and its flow's memory
// into another state, where it can be resumed.
func copyRun(from, to *state.Store, run *state.Run, steps []*state.StepResult) error {
	r := *run
	if err := to.CreateRun(&r); err != nil {
		return err
	}
	for _, sr := range steps {
		c := *sr
		to.RecordStep(&c)
	}
	if err := to.Flush(); err != nil {
		return err
	}
	r = *run
	if err := to.FinishRun(&r); err != nil {
		return err
	}
	mem, err := from.Memory(run.Flow, run.Namespace)
	if err != nil || len(mem) == 0 {
		return err
	}
	return to.SetMemory(run.Flow, run.Namespace, mem)
}

// copyFlowDir copies a flow's directory, without its state (.flowctl),
// version control, dependencies or any file over 1 MB.
func copyFlowDir(from, to string) error {
	return filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, path)
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".flowctl", ".git", "node_modules":
				if rel != "." {
					return filepath.SkipDir
				}
			}
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		info, err := d.Info()
		if err != nil || !info.Mode().IsRegular() || info.Size() > 1<<20 {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
}
