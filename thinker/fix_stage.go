package thinker

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime/state"
)

// A failed run explained, its fix staged; a proposal accepted: what
// flowctl explain and proposals, and serve's /v1/runs/{id}/explain and
// /v1/proposals, do alike.

// Why a run cannot be explained.
var (
	ErrNoFailedRun    = errors.New("the state has no failed run to explain")
	ErrNotExplainable = errors.New("explain takes a run that failed, was cancelled or was interrupted")
)

// ExplainableRun is the run to explain: the one named, else the newest
// failed top-level run. A run that did not fail is ErrNotExplainable; a
// run the state lacks is state.Run's error.
func ExplainableRun(st *state.Store, id string) (*state.Run, error) {
	if id == "" {
		runs, err := st.ListRuns(state.RunFilter{Status: "failed", TopLevel: true}, 1)
		if err != nil {
			return nil, err
		}
		if len(runs) == 0 {
			return nil, ErrNoFailedRun
		}
		return runs[0], nil
	}
	run, err := st.Run(id)
	if err != nil {
		return nil, err
	}
	if !failedStatus(run.Status) {
		return nil, fmt.Errorf("run %s is %s; %w", run.ID, run.Status, ErrNotExplainable)
	}
	return run, nil
}

// ExplainRunOptions configure ExplainRun. Prog is the run's flow, compiled
// from its file as it is now.
type ExplainRunOptions struct {
	Store      *state.Store
	Run        *state.Run
	Prog       *compiler.Program
	Secrets    map[string]string
	Registries []string
	GoEngine   string
	Timeout    time.Duration
	// HTTP are the options of the executors' http and scrape blocks: its
	// Egress is the HTTP allow list (nil for none).
	HTTP      blocks.HTTPOptions
	Executors func() (*blocks.Executors, func(), error)

	Model     Model
	ModelName string
	NoFix     bool
	MaxCalls  int
	MaxTokens int
	Observe   func(Event)
}

// ExplainRun explains a failed run: the model gets the run's context,
// redacted and budgeted, and each fix it proposes is checked on a copy of
// the run; a fix that passed is staged as a proposal (ExplainResult's
// Proposal). An error of the model's requests is an *Error (ErrBudget
// for a budget stop); the result then has the usage so far.
func ExplainRun(ctx context.Context, o ExplainRunOptions) (*ExplainResult, error) {
	steps, err := o.Store.Steps(o.Run.ID)
	if err != nil {
		return nil, err
	}
	red := NewRedactor(o.Prog, o.Secrets)
	ectx, recorded, err := ExplainContext(o.Run, o.Prog, steps, red)
	if err != nil {
		return nil, err
	}
	check := &FixChecker{Store: o.Store, Run: o.Run, Prog: o.Prog, Secrets: o.Secrets, Redactor: red,
		Registries: o.Registries, GoEngine: o.GoEngine, Timeout: o.Timeout, HTTP: o.HTTP, Executors: o.Executors}
	defer check.Close()
	res, err := Explain(ctx, ExplainOptions{
		Model: RedactingModel(o.Model, red), ModelName: o.ModelName, Context: ectx, Recorded: recorded, NoFix: o.NoFix,
		Verify: check.Check, MaxCalls: o.MaxCalls, MaxTokens: o.MaxTokens, Observe: o.Observe,
	})
	if err != nil {
		return res, err
	}
	if res.Fix != nil {
		if res.Proposal, err = StageFix(o.Store, o.Run, o.Prog.Filename, res, o.Registries); err != nil {
			return res, err
		}
	}
	return res, nil
}

// StageFix stages a verified fix as a proposal: its files by their paths
// from the state's project (ProposalBase), each with the SHA-256 of what
// it has now, its diff, the diagnosis, the evidence and what it weakens
// (ProposalWeakenings, the flow compiled with registries).
func StageFix(st *state.Store, run *state.Run, flowFile string, res *ExplainResult, registries []string) (string, error) {
	base, dir := ProposalBase(st), filepath.Dir(flowFile)
	intent := "fix run " + run.ID + ": " + res.Fix.Summary
	if len(res.Verification.NotVerified) > 0 {
		intent = "fix run " + run.ID + " (not verified): " + res.Fix.Summary
	}
	p := &state.Proposal{Flow: run.Flow, FlowFile: flowFile, Intent: intent,
		RunID: run.ID, Diagnosis: res.Diagnosis, Evidence: res.Verification.Evidence}
	var diff strings.Builder
	var change Change
	for _, fx := range res.Fix.Files {
		path := filepath.Join(dir, filepath.FromSlash(fx.Path))
		rel, err := RelTo(base, path)
		if err != nil {
			return "", err
		}
		pf := state.ProposalFile{Path: rel, Content: fx.Content}
		old, err := os.ReadFile(path)
		switch {
		case err == nil:
			pf.BaseSHA256 = SHA256Hex(old)
			change.Changed = append(change.Changed, "file "+fx.Path)
		case errors.Is(err, os.ErrNotExist):
			change.Added = append(change.Added, "file "+fx.Path)
		default:
			return "", err
		}
		diff.WriteString(unifiedDiff(filepath.ToSlash(rel), old, []byte(fx.Content)))
		p.Files = append(p.Files, pf)
	}
	p.Diff = diff.String()
	summary, err := json.Marshal(change)
	if err != nil {
		return "", err
	}
	p.Summary = summary
	return record(st, p, registries)
}

// StageProposal records what think --edit proposes in the project's
// state: its files by their paths from the flow's directory, each with
// the SHA-256 of the content it had, and what it weakens.
func StageProposal(st *state.Store, p *Proposal, registries []string) (string, error) {
	base := ProposalBase(st)
	summary, err := json.Marshal(p.Change)
	if err != nil {
		return "", err
	}
	sp := &state.Proposal{Flow: p.Flow, FlowFile: p.FlowFile, Intent: p.Intent, Summary: summary, Diff: p.Diff}
	for _, f := range p.Files {
		rel, err := RelTo(base, f.Path)
		if err != nil {
			return "", err
		}
		pf := state.ProposalFile{Path: rel, Content: string(f.Content)}
		if f.Base != nil {
			pf.BaseSHA256 = SHA256Hex(f.Base)
		}
		sp.Files = append(sp.Files, pf)
	}
	return record(st, sp, registries)
}

// record stages a proposal with what it weakens.
func record(st *state.Store, p *state.Proposal, registries []string) (string, error) {
	var err error
	if p.Weakenings, err = ProposalWeakenings(st, p, registries); err != nil {
		return "", err
	}
	if err := st.CreateProposal(p); err != nil {
		return "", err
	}
	return p.ID, nil
}

// ProposalBase is the directory the paths of a state's proposals and
// patterns are relative to: the one that holds the state directory (the
// flow's); for a state in a database server (PostgreSQL), the working
// directory.
func ProposalBase(st *state.Store) string {
	if p := st.Path(); filepath.IsAbs(p) {
		return filepath.Dir(filepath.Dir(p))
	}
	return "."
}

// SHA256Hex is the SHA-256 of b, in hex.
func SHA256Hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// A DriftError refuses to accept a proposal: a file it changes is not
// what it was when the proposal was made. Nothing was written.
type DriftError struct {
	Proposal, Path string
	What           string // changed, was created, was removed
}

func (e *DriftError) Error() string {
	return fmt.Sprintf("%s %s since proposal %s was made, so nothing was written", e.Path, e.What, e.Proposal)
}

// AcceptProposal writes a staged proposal's files, each atomically, once
// every one still has the content the proposal was made from (else a
// *DriftError, nothing written), marks it accepted (p is updated) and
// records its flow as a pattern. A proposal decided already is
// state.ErrNotStaged.
func AcceptProposal(st *state.Store, p *state.Proposal, registries []string) error {
	if p.Status != state.ProposalStaged {
		return fmt.Errorf("proposal %s was %s: %w", p.ID, p.Status, state.ErrNotStaged)
	}
	base := ProposalBase(st)
	for _, f := range p.Files {
		now := ""
		switch b, err := os.ReadFile(filepath.Join(base, f.Path)); {
		case err == nil:
			now = SHA256Hex(b)
		case !errors.Is(err, fs.ErrNotExist):
			return err
		}
		if now != f.BaseSHA256 {
			what := "changed"
			switch {
			case f.BaseSHA256 == "":
				what = "was created"
			case now == "":
				what = "was removed"
			}
			return &DriftError{Proposal: p.ID, Path: f.Path, What: what}
		}
	}
	for _, f := range p.Files {
		if err := replaceFile(filepath.Join(base, f.Path), []byte(f.Content)); err != nil {
			return fmt.Errorf("writing %s: %w", f.Path, err)
		}
	}
	if err := DecideProposal(st, p, state.ProposalAccepted); err != nil {
		return err
	}
	// The accepted flow is a pattern.
	origin := state.PatternEdit
	if p.RunID != "" {
		origin = state.PatternExplain
	}
	if _, err := os.Stat(p.FlowFile); err == nil {
		RecordPattern(st, p.FlowFile, p.Intent, origin, registries)
	}
	return nil
}

// DecideProposal records a decision on a staged proposal and updates p.
func DecideProposal(st *state.Store, p *state.Proposal, status string) error {
	if err := st.DecideProposal(p.ID, status); err != nil {
		if errors.Is(err, state.ErrNotStaged) {
			return fmt.Errorf("proposal %s was %s already: %w", p.ID, p.Status, state.ErrNotStaged)
		}
		return err
	}
	updated, err := st.Proposal(p.ID)
	if err != nil {
		return err
	}
	*p = *updated
	return nil
}

// replaceFile writes a file atomically (writeFile), keeping the
// permissions of the file it replaces and writing through a link.
func replaceFile(name string, data []byte) error {
	if target, err := filepath.EvalSymlinks(name); err == nil {
		name = target
	}
	info, statErr := os.Stat(name)
	if err := writeFile(name, data); err != nil {
		return err
	}
	if statErr == nil && info.Mode().Perm() != 0o644 {
		return os.Chmod(name, info.Mode().Perm())
	}
	return nil
}

// RecordPattern records the flow file as a pattern of the state: its
// intent, source and the blocks it uses (with the source of those defined
// in files of their own). A flow that does not compile is not recorded.
func RecordPattern(st *state.Store, flowFile, intent, origin string, registries []string) error {
	src, err := os.ReadFile(flowFile)
	if err != nil {
		return err
	}
	prog, diags := compiler.Compile(flowFile, compiler.Options{Parser: lang.NewParser(), RegistryDirs: registries, SkipCode: true})
	if diags.HasErrors() {
		return nil // only a flow that compiles is a pattern
	}
	base := ProposalBase(st)
	rel, err := RelTo(base, flowFile)
	if err != nil {
		return err
	}
	p := &state.Pattern{Intent: intent, Flow: prog.Flow.Name, FlowFile: filepath.ToSlash(rel), Source: string(src), Origin: origin}
	seen := map[string]bool{}
	for _, s := range prog.Steps {
		if s.Block == nil || seen[s.Block.Name] {
			continue
		}
		seen[s.Block.Name] = true
		pb := state.PatternBlock{Name: s.Block.Name}
		if file := StepBlockFile(s); file != "" && file != prog.Filename {
			if b, err := os.ReadFile(file); err == nil {
				r, _ := RelTo(base, file)
				pb.Path, pb.Source = filepath.ToSlash(r), string(b)
			}
		}
		p.Blocks = append(p.Blocks, pb)
	}
	return st.RecordPattern(p)
}
