package thinker

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/index"
	"github.com/flowctl/flowctl/blocks/llm"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/hashicorp/hcl/v2"
)

// Limits of the stages (docs/design.md, "The thinker").
const (
	MaxClarifyRounds  = 3 // clarify requests on a terminal
	MaxDecomposeTries = 3 // decompose requests when the blocks have problems
	MaxCreateTries    = 3 // create_block requests per missing block
	MaxRepairs        = 3 // repair requests after wire
	// DefaultMaxCalls bounds the model requests of a whole run when
	// Options.MaxCalls is 0.
	DefaultMaxCalls = 40
)

// EnvMaxTokens is the environment variable of the token budget of think
// and explain when --max-tokens is not given.
const EnvMaxTokens = "FLOWCTL_MAX_TOKENS"

// modelWhere is where the user of flowctl think names the model, for the
// advice of an unknown model's error.
const modelWhere = "with --model or in " + llm.EnvModel

// Model answers structured requests; *llm.Executor is one.
type Model interface {
	Ask(ctx context.Context, req llm.AskRequest) ([]byte, blocks.Usage, error)
}

var _ Model = (*llm.Executor)(nil)

// Options configure Think.
type Options struct {
	// Intent is what the flow should do, in the user's words.
	Intent string
	// Model answers the stages' requests; ModelName, when set, is the
	// model asked (empty: the provider's configured default).
	Model     Model
	ModelName string

	// Out is the flow file to write. Empty: NAME.flow.hcl in Dir, NAME the
	// flow's name (NAME_2.flow.hcl and so on when that file exists).
	Out string
	// Dir is where the flow goes when Out is empty; empty means ".".
	Dir string
	// Registries are the --registry directories, searched besides the
	// built-ins and the blocks/ directory next to the flow.
	Registries []string

	// Runtime, when set ("go", "js" or "python"), is the runtime the
	// blocks of code it creates are written in; empty: the model chooses.
	Runtime string
	// AllowPackages lets the python blocks it creates declare
	// requirements (PyPI packages, locked by flowctl lock before they
	// run); without it a block with requirements fails its check.
	AllowPackages bool

	// Executors run the examples of created go, js and python blocks.
	Executors *blocks.Executors
	// ExampleTimeout bounds one example run; zero: blocktest's default.
	ExampleTimeout time.Duration

	// NoClarify skips the clarify stage.
	NoClarify bool
	// Answer asks the user a clarifying question and returns the answer;
	// nil when there is no terminal to ask on, so that an intent that
	// needs clarifying fails with the model's question. An empty answer
	// goes on with the intent as understood.
	Answer func(ctx context.Context, question string) (string, error)

	// Force writes the last flow attempt even when it does not validate.
	Force bool

	// MaxCalls bounds the model requests of the whole run; 0 means
	// DefaultMaxCalls.
	MaxCalls int
	// Patterns are the flows that worked (from the state): a close one,
	// whose blocks are all in the registry, is the plan and the worked
	// example of the run, and decompose is not asked (patterns.go).
	Patterns []Pattern
	// MaxTokens, when above 0, bounds the tokens of the whole run: a
	// request that would take the run past it (by an estimate of its
	// prompt and reply) is not sent, and the run stops with an Error
	// wrapping ErrBudget, having written nothing.
	MaxTokens int

	// Edit, when set, is a flow file to change rather than a new flow to
	// write: the model gets the flow, plans only what is new, and wires
	// a complete new version, which is applied to the file in place. The
	// result is a proposal (Result.Proposal): nothing is written, and
	// the blocks it creates are part of it. Out and Force do not apply.
	Edit string
	// Stage, when set, records a proposal and returns its ID (for the
	// Proposed event).
	Stage func(*Proposal) (string, error)

	// Embedder, when set, adds embeddings to the registry search, with
	// EmbeddingsModel and the optional VectorCache (see package index).
	Embedder        index.Embedder
	VectorCache     index.VectorCache
	EmbeddingsModel string

	// Observe receives the events, one at a time; nil: none.
	Observe func(Event)
}

// Result is what Think did.
type Result struct {
	Flow       string   // the flow's name
	File       string   // the flow file written; empty when none
	Valid      bool     // whether the written flow validates
	BlockFiles []string // the block files written for created blocks
	// Diagnostics are the last flow attempt's, with Files for their
	// snippets.
	Diagnostics hcl.Diagnostics
	Files       map[string]*hcl.File
	Usage       blocks.Usage // tokens of every request
	Calls       Usage        // the requests, stage by stage
	// Proposal is the change an Edit run proposes; nil otherwise.
	Proposal *Proposal
	// Pattern is the ID of the pattern the run was based on; "" for none.
	Pattern string
}

// Proposal is the change think --edit proposes: the flow file and the
// new block files, each with the content it had (nil: a new file) and
// its new content, the change part by part, and the unified diff.
type Proposal struct {
	ID       string // when staged (Options.Stage)
	Flow     string
	FlowFile string
	Intent   string
	Change   Change
	Files    []ProposedFile
	Diff     string
}

// ProposedFile is a file a proposal writes.
type ProposedFile struct {
	Path    string
	Base    []byte // nil: the file is new
	Content []byte
}

// Error is why Think failed: the stage and what went wrong.
type Error struct {
	Stage string
	Msg   string
	Err   error // the underlying error, if any
}

func (e *Error) Error() string { return e.Stage + ": " + e.Msg }
func (e *Error) Unwrap() error { return e.Err }

func stageErr(stage string, err error, format string, args ...any) *Error {
	return &Error{Stage: stage, Msg: fmt.Sprintf(format, args...), Err: err}
}

// run is one Think call.
type run struct {
	opts Options
	dir  string // the flow's directory
	res  *Result
	reg  *blocks.Registry // the registry, created blocks added as they pass

	base     *baseFlow // the flow an Edit run changes; nil otherwise
	stageDir string    // where an Edit run keeps the blocks it creates
	staged   []ProposedFile

	meter meter // the model requests sent, and the budgets
	// pattern is the pattern the run is based on (patterns.go); nil for
	// none.
	pattern *Pattern
}

// Think turns an intent into a flow file that validates, creating the
// blocks the registry lacks: clarify → decompose → search → create_block
// → wire → repair. It writes block files as their examples pass and the
// flow file only when it validates (or with Force), each atomically. The
// last event is Complete when the flow was written, Failed otherwise. A
// written flow that does not validate (Force) is returned with an Error.
func Think(ctx context.Context, opts Options) (*Result, error) {
	r := &run{opts: opts, res: &Result{}}
	r.dir = opts.Dir
	switch {
	case opts.Edit != "":
		r.dir = filepath.Dir(opts.Edit)
	case opts.Out != "":
		r.dir = filepath.Dir(opts.Out)
	}
	if r.dir == "" {
		r.dir = "."
	}
	if opts.Edit != "" {
		var err error
		if r.stageDir, err = os.MkdirTemp("", "flowctl-think-"); err != nil {
			return r.res, stageErr(StageDecompose, err, "%s", err)
		}
		defer os.RemoveAll(r.stageDir)
	}
	err := r.think(ctx)
	if err != nil {
		var te *Error
		if !errors.As(err, &te) {
			te = &Error{Stage: "think", Msg: err.Error(), Err: err}
			err = te
		}
		if errors.Is(err, ErrBudget) {
			// A run stopped by its budget writes nothing: the blocks it
			// created go too.
			for _, f := range r.res.BlockFiles {
				os.Remove(f)
			}
			r.res.BlockFiles = nil
		}
		if r.res.File == "" {
			r.emitUsage()
			r.emit(Failed{
				Time: time.Now(), Stage: te.Stage, Message: te.Msg, BlockFiles: r.res.BlockFiles,
				Diagnostics: r.res.Diagnostics, Files: r.res.Files, Usage: r.res.Usage, Budget: errors.Is(err, ErrBudget),
			})
		}
	}
	r.res.Calls = r.meter.usage
	return r.res, err
}

func (r *run) think(ctx context.Context) error {
	intent := strings.TrimSpace(r.opts.Intent)
	if intent == "" {
		return stageErr(StageClarify, nil, "the intent is empty; say what the flow should do")
	}
	if r.opts.Model == nil {
		return stageErr(StageClarify, nil, "no model to ask")
	}
	if r.opts.Edit != "" {
		var err error
		if r.base, err = loadBase(r.opts.Edit); err != nil {
			return err
		}
	}
	if err := r.loadRegistry(); err != nil {
		return err
	}
	if !r.opts.NoClarify {
		var err error
		if intent, err = r.clarify(ctx, intent); err != nil {
			return err
		}
	}
	if p, score, sim := r.matchPattern(ctx, intent); p != nil {
		// A close pattern whose blocks are all here: its blocks are the
		// plan, and its flow the worked example of wire.
		r.pattern, r.res.Pattern = p, p.ID
		r.emit(PatternUsed{Time: time.Now(), ID: p.ID, Name: p.Name, Relevance: score, Similarity: sim, Blocks: p.Blocks})
		return r.wire(ctx, intent, r.patternPlan(p))
	}
	plan, err := r.plan(ctx, intent)
	if err != nil {
		return err
	}
	return r.wire(ctx, intent, plan)
}

// plan decomposes the intent, searches the registry and creates the
// blocks it lacks. When a block cannot be written, it plans once more,
// telling decompose what failed (split the block, or use others); the
// blocks created so far are in the registry by then, for the search.
func (r *run) plan(ctx context.Context, intent string) ([]*planned, error) {
	failed := ""
	for round := 1; ; round++ {
		specs, err := r.decompose(ctx, intent, failed)
		if err != nil {
			return nil, err
		}
		plan, err := r.search(ctx, specs)
		if err != nil {
			return nil, err
		}
		err = nil
		for _, p := range plan {
			if p.block != nil {
				continue
			}
			if p.block, err = r.create(ctx, intent, p.spec); err != nil {
				break
			}
			p.created = true
		}
		var te *Error
		switch {
		case err == nil:
			return plan, nil
		case round == 1 && errors.As(err, &te) && errors.Is(te.Err, errNotWritten):
			failed = te.Msg
		default:
			return nil, err
		}
	}
}

// loadRegistry loads the blocks a flow in the target directory can use
// and compiles their code, as validate does: a registry block that does
// not decode or compile would fail every flow attempt, and the model
// cannot change it, so it ends the run before the first request.
func (r *run) loadRegistry() error {
	parser := lang.NewParser()
	opts := blocks.LoadOptions{
		Parser:       parser,
		FlowFile:     filepath.Join(r.dir, "flow.flow.hcl"),
		RegistryDirs: r.opts.Registries,
	}
	if r.base != nil {
		// The blocks the edited flow defines inline are the flow's to use.
		opts.FlowFile = r.base.path
		if f, d := parser.ParseSource(r.base.src, r.base.path); !d.HasErrors() {
			file, _ := lang.DecodeFlowFile(f, r.base.path)
			opts.Inline = file.Blocks
		}
	}
	reg, diags := blocks.Load(opts)
	var defs []*lang.BlockDef
	for _, b := range reg.All() {
		if b.Def != nil {
			defs = append(defs, b.Def)
		}
	}
	diags = append(diags, compiler.CheckCode(defs, "")...)
	if diags.HasErrors() {
		r.res.Diagnostics, r.res.Files = compiler.Normalize(diags), parser.Files()
		return stageErr(StageSearch, nil, "the registry has errors; fix its block files first (flowctl validate shows them)")
	}
	r.reg = reg
	return nil
}

func (r *run) emit(e Event) {
	if r.opts.Observe != nil {
		r.opts.Observe(e)
	}
}

// stage reports the start of a stage; reason, for a stage asked again,
// is why the previous try failed.
func (r *run) stage(name string, try int, block, intent, reason string) {
	r.emit(StageStarted{Time: time.Now(), Stage: name, Try: try, Block: block, Intent: intent, Reason: reason})
}

// UseEmbeddings adds embeddings to the registry search when cfg names an
// embeddings model (FLOWCTL_EMBEDDINGS_MODEL), with the vectors cached in
// st (nil: embedded without a cache).
func (o *Options) UseEmbeddings(cfg llm.Config, st *state.Store) {
	if cfg.EmbeddingsModel == "" {
		return
	}
	o.Embedder = llm.NewEmbedder(cfg, cfg.EmbeddingsModel)
	o.EmbeddingsModel = cfg.EmbeddingsModel
	if st != nil {
		o.VectorCache = st.Vectors(cfg.EmbeddingsModel)
	}
}
