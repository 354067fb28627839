package compiler

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/lang/jsonval"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// Program is a compiled flow.
type Program struct {
	// GoEngine is the engine every go block runs with (Options.GoEngine,
	// --go-engine): "" for each block's own.
	GoEngine string
	Filename string
	Dir      string
	// SourceHash is the SHA-256 of the flow file and every block file it
	// loaded, with the source hashes of the flows it uses (sub-flows and
	// tools), so that a saved plan can tell when the flow changed.
	SourceHash string
	// sources, versionHash and versionFiles: version.go.
	sources      map[string][]byte
	versionHash  string
	versionFiles map[string][]byte

	File      *lang.File
	Flow      *lang.Flow
	Registry  *blocks.Registry
	Functions map[string]function.Function

	Inputs   []*lang.Input
	Secrets  []*lang.Secret
	Locals   []*Local
	Memories []*lang.Memory
	Outputs  []*lang.Output
	// OutputTypes are the outputs' types as the compiler knows them
	// (cty.DynamicPseudoType where only the run will tell).
	OutputTypes map[string]cty.Type
	// Schedules are when flowctl serve starts runs of the flow, each
	// checked: its inputs resolve (ScheduleInputs).
	Schedules []*lang.Schedule
	// Triggers start runs of the flow in flowctl serve, each checked
	// (triggers).
	Triggers []*lang.Trigger
	// Limits are the per-key limits on the flow's runs, each key checked
	// (LimitKeys).
	Limits lang.Limits
	// MCPServers are the MCP servers the flow declares, whose tools its
	// steps may call.
	MCPServers       []*lang.MCPServer
	MCPServersByName map[string]*lang.MCPServer
	// Providers are the model servers the flow declares, which its llm
	// steps may name.
	Providers       []*lang.Provider
	ProvidersByName map[string]*lang.Provider
	// Collections are the vector collections the flow declares, which
	// its vector steps name.
	Collections       []*lang.Collection
	CollectionsByName map[string]*lang.Collection
	Steps             []*Step // in declaration order

	InputsByName   map[string]*lang.Input
	SecretsByName  map[string]*lang.Secret
	LocalsByName   map[string]*Local
	MemoriesByName map[string]*lang.Memory
	StepsByName    map[string]*Step
	OutputsByName  map[string]*lang.Output
	// OutputSteps are the steps each output's value refers to, directly or
	// through locals, in declaration order: a failed run has an output
	// only when all of them finished.
	OutputSteps map[*lang.Output][]*Step
	// MemorySteps are the steps each memory's new value refers to, the
	// same way; it is evaluated when the run ends.
	MemorySteps map[*lang.Memory][]*Step

	// Stages are the longest-path levels of the DAG: a step's stage is one
	// more than the highest stage of its dependencies. They are for display;
	// the runtime starts each step as soon as its own dependencies finish.
	Stages [][]*Step
	// CriticalPath is a longest chain of dependent steps.
	CriticalPath []*Step

	// Fingerprints identify each block's definition for the result cache:
	// a hash of its source text (and source_file), or of the built-in's
	// name and version.
	Fingerprints map[*blocks.Block]string

	// vars are the references of each expression the resolve pass
	// checked, so that evaluating an expression, once per step instance
	// and run, does not walk its syntax tree again: their names (the
	// traversals are dropped when compiling ends). Read-only after
	// compilation.
	vars map[hcl.Expression]*exprRefs
}

// Step is a compiled step.
type Step struct {
	*lang.Step
	Index   int // position in Program.Steps
	Block   *blocks.Block
	Outputs []*lang.Field // the block's outputs plus the step's declared ones
	// OutputType is the type of one instance's outputs; Value is what
	// `step.NAME` evaluates to at compile time (unknown, of the right type,
	// marked sensitive when it may be).
	OutputType cty.Type
	Value      cty.Value
	Sensitive  bool

	// LocalRefs are the locals the step's expressions (arguments, when,
	// for_each) use, transitively.
	LocalRefs []*Local
	// Deps are the steps this one depends on, in declaration order;
	// Dependents the steps that depend on it.
	Deps       []*Step
	Dependents []*Step
	// Tools are what an llm step may call, from its tools argument.
	Tools []*Tool
	// Provider is the provider an llm step names; nil: the environment's.
	Provider *lang.Provider
	// Collection is the collection a vector step names; nil for other
	// steps.
	Collection *lang.Collection
	// Flow is the flow a step uses as its block (use = "flow.NAME"), whose
	// inputs and outputs Block has (FlowBlock); nil for other steps.
	Flow  *Program
	Stage int // index into Program.Stages
	// sum is a SHA-256 of the step's source, its whole block (zero when
	// the source could not be read), and env one of the inputs, locals,
	// memories and secrets its expressions refer to (hashEnvs): see
	// StepFingerprints.
	sum, env [32]byte
}

// Local is a compiled local value.
type Local struct {
	*lang.Local
	Refs  []*lang.Ref
	Deps  []*Local // locals it refers to directly
	Steps []*Step  // steps it refers to directly
	// sum is a SHA-256 of its expression's source (hashSteps).
	sum [32]byte
}

// CacheEnabled is whether the step's results are cached: the step's cache
// argument, else its block's default.
func (s *Step) CacheEnabled() bool {
	if s.Cache != nil {
		return *s.Cache
	}
	return s.Block.CacheDefault
}

// Names returns the names of steps, in order.
func Names(steps []*Step) []string {
	out := make([]string, len(steps))
	for i, s := range steps {
		out[i] = s.Name
	}
	return out
}

// Options configure a compilation.
type Options struct {
	// Parser reads the files; the caller keeps it to print diagnostics with
	// snippets. A new one is made when nil.
	Parser *lang.Parser
	// RegistryDirs are the --registry directories.
	RegistryDirs []string
	// Source, when set, is used as the flow file's content instead of
	// reading it (for tests and editors).
	Source []byte
	// OnFileRead, when set, is told every path the file() function reads,
	// at compile time and when the program runs.
	OnFileRead func(path string)
	// GoEngine, when set, is the engine every go block is checked for
	// (--go-engine): a compiled block is vetted (and built, with Build),
	// an interpreted one compiled by yaegi. Empty: each block's own engine.
	GoEngine string
	// Build builds each compiled go block, so that its compile errors are
	// diagnostics at its lines (validate, test, watch). Without it a
	// compiled block is only vetted; it is built when an instance first
	// runs on it, so that a run whose steps are all cached builds nothing.
	Build bool
	// Release drops each flow file's syntax tree from Parser as the file
	// is decoded (lang.ConsumeFlowFile), for a caller that keeps the
	// program and would release the trees after compiling anyway
	// (Parser.Release): a large flow's trees and the program built from
	// them are then not all in memory at once.
	Release bool
	// SkipCode skips checking the code of go and js blocks (the code
	// pass), for a caller that needs only the flow's shape — its steps,
	// their order and dependencies — such as runs show: a go block
	// compiled by the Go toolchain is not built.
	SkipCode bool
	// Overrides replace arguments of the flow's steps before it is
	// checked (an eval's variant, lang.ApplyOverride): the program is the
	// flow as the variant runs it. An override of a step the flow does
	// not have is an error at the override's step label.
	Overrides []*lang.EvalOverride

	flows *flowSet // shared with the compilations of the flows it uses
}

// Compile compiles the flow file at filename. It returns the program as far
// as compilation got, which is complete only when diags has no errors.
//
// A panic while compiling, a bug whatever the file holds, is an error
// diagnostic rather than the end of the process: serve, watch and the
// language server compile files as they are saved, and no file may take
// them down.
func Compile(filename string, opts Options) (prog *Program, diags hcl.Diagnostics) {
	defer func() {
		if r := recover(); r != nil {
			if prog == nil {
				prog = &Program{Filename: filename, Dir: filepath.Dir(filename)}
			}
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Internal compiler error",
				Detail: fmt.Sprintf("Compiling %s failed inside flowctl: %v. This is a bug in flowctl, not in the file; the file is refused until it is fixed. Please report it with the file.",
					filename, r),
			})
		}
	}()
	if opts.Parser == nil {
		opts.Parser = lang.NewParser()
	}
	if opts.flows == nil {
		opts.flows = newFlowSet(filename)
	}
	c := &compilation{
		opts: opts,
		prog: &Program{Filename: filename, Dir: filepath.Dir(filename), GoEngine: opts.GoEngine, vars: map[hcl.Expression]*exprRefs{}},
	}
	prog = c.prog
	failed := false
	var errRanges []hcl.Range // of the errors of earlier passes
	for _, p := range passes {
		if c.prog.Registry == nil && p.name != "decode" {
			break // the file could not be read or parsed
		}
		if (failed && !p.afterErrors) || (c.noEval && p.name == "types") || (opts.SkipCode && p.name == "code") {
			continue
		}
		d := consequences(p.run(c), errRanges)
		diags = append(diags, d...)
		for _, e := range d {
			if e.Severity == hcl.DiagError && e.Subject != nil {
				errRanges = append(errRanges, *e.Subject)
			}
		}
		failed = failed || d.HasErrors()
	}
	c.hashFlowsUsed()
	c.keepVersion()
	// Evaluating an expression needs its names; its traversals were for
	// the passes.
	for _, r := range c.prog.vars {
		r.traversals = nil
	}
	return c.prog, Normalize(diags)
}

// hashFlowsUsed folds the source hashes of the flows the flow uses, as
// steps' blocks and as tools, into its own: a change in one of them is a
// change of the flow, for a saved plan and for a run resumed.
func (c *compilation) hashFlowsUsed() {
	var used []string
	for _, s := range c.prog.Steps {
		if s.Flow != nil {
			used = append(used, s.Flow.Flow.Name+"="+s.Flow.SourceHash)
		}
		for _, t := range s.Tools {
			if t.Flow != nil {
				used = append(used, t.Flow.Flow.Name+"="+t.Flow.SourceHash)
			}
		}
	}
	if len(used) == 0 {
		return
	}
	slices.Sort(used)
	h := sha256.New()
	h.Write([]byte(c.prog.SourceHash))
	for _, u := range slices.Compact(used) {
		h.Write([]byte{0})
		h.Write([]byte(u))
	}
	c.prog.SourceHash = hex.EncodeToString(h.Sum(nil))
}

// consequences drops the diagnostics of a pass that are consequences of an
// error an earlier pass reported: those about the same source (their
// ranges overlap), such as the type error of a reference that does not
// resolve.
func consequences(diags hcl.Diagnostics, earlier []hcl.Range) hcl.Diagnostics {
	if len(earlier) == 0 {
		return diags
	}
	out := diags[:0:0]
	for _, d := range diags {
		if d.Subject != nil && slices.ContainsFunc(earlier, func(r hcl.Range) bool { return overlaps(r, *d.Subject) }) {
			continue
		}
		out = append(out, d)
	}
	return out
}

func overlaps(a, b hcl.Range) bool {
	return a.Filename == b.Filename && a.Start.Byte < max(b.End.Byte, b.Start.Byte+1) && b.Start.Byte < max(a.End.Byte, a.Start.Byte+1)
}

type compilation struct {
	opts Options
	prog *Program
	// eachMisses are the each.NAME references resolve found that are
	// neither key nor value, for the types pass to hint at (hintEach).
	eachMisses []eachMiss
	// stepRefs are the references of each step's expressions (arguments,
	// when, for_each), by step index, and outputRefs and memoryRefs those
	// of each output's and memory's value (resolve), from which graph
	// finds the steps each needs; depRanges are where each step refers
	// to each of its Deps, by index (graph), for the cycles pass. They
	// are the compilation's: a program does not keep them.
	stepRefs   [][]*lang.Ref
	outputRefs map[*lang.Output][]*lang.Ref
	memoryRefs map[*lang.Memory][]*lang.Ref
	depRanges  [][]hcl.Range
	// noEval: expressions cannot be evaluated (locals form a cycle); the
	// types pass, which evaluates them, is skipped.
	noEval bool
}

// passes are the compiler's passes in order. Those marked afterErrors
// run after a pass that found errors too, so that one compilation reports
// every error it can: each skips, or gives a placeholder (an unknown value)
// for, what an earlier pass could not make, so that no error is a mere
// consequence of another. The others need a program without errors.
var passes = []struct {
	name        string
	run         func(*compilation) hcl.Diagnostics
	afterErrors bool
}{
	{"decode", (*compilation).decode, true},
	{"code", (*compilation).code, true},
	{"resolve", (*compilation).resolve, true},
	{"types", (*compilation).types, true},
	{"graph", (*compilation).graph, true},
	{"cycles", (*compilation).cycles, true},
	{"stages", (*compilation).stages, false},
	{"schedules", (*compilation).schedules, true},
	{"triggers", (*compilation).triggers, true},
	{"limits", (*compilation).limits, true},
}

// Normalize orders diagnostics by file and position, diagnostics without a
// range first, and drops repeats of the same problem at the same place.
//
// It sorts first and then compares each diagnostic only with those that
// start at the same place, so that a file with hundreds of thousands of
// problems is normalized in a fraction of a second.
func Normalize(diags hcl.Diagnostics) hcl.Diagnostics {
	before := func(a, b *hcl.Range) bool {
		switch {
		case a == nil || b == nil:
			return a == nil && b != nil
		case a.Filename != b.Filename:
			return a.Filename < b.Filename
		}
		return a.Start.Byte < b.Start.Byte
	}
	if !sort.SliceIsSorted(diags, func(i, j int) bool { return before(diags[i].Subject, diags[j].Subject) }) {
		sort.SliceStable(diags, func(i, j int) bool { return before(diags[i].Subject, diags[j].Subject) })
	}
	out := diags[:0]
	group := 0 // where the diagnostics starting at the current place begin in out
	for _, d := range diags {
		if len(out) > group && (before(out[group].Subject, d.Subject) || before(d.Subject, out[group].Subject)) {
			group = len(out)
		}
		dup := false
		for _, o := range out[group:] {
			if o.Summary == d.Summary && o.Detail == d.Detail && sameRange(o.Subject, d.Subject) {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, d)
		}
	}
	return out
}

func sameRange(a, b *hcl.Range) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// hashSteps computes each step's sum and each local's.
func (c *compilation) hashSteps() {
	p := c.prog
	f := c.opts.Parser.Files()[p.Filename]
	if f == nil {
		return
	}
	src := func(r hcl.Range) []byte {
		if r.Filename != p.Filename || r.Start.Byte > r.End.Byte || r.End.Byte > len(f.Bytes) {
			return nil
		}
		return f.Bytes[r.Start.Byte:r.End.Byte]
	}
	for _, s := range p.Steps {
		if b := src(hcl.Range{Filename: p.Filename, Start: s.DeclRange.Start, End: hcl.Pos{Byte: s.SrcEnd}}); b != nil {
			s.sum = sha256.Sum256(b)
		}
	}
	for _, l := range p.Locals {
		l.sum = sha256.Sum256(src(l.Expr.Range()))
	}
}

// hashEnvs computes each step's env: what the inputs, locals, memories
// and secrets its expressions refer to (locals with what they refer to in
// turn) are declared as, and for an mcp step the MCP servers it may call.
// Steps are not in it: StepFingerprints folds in the fingerprints of the
// steps a step depends on.
func (c *compilation) hashEnvs() {
	p := c.prog
	for _, s := range p.Steps {
		var parts []string
		seen := map[string]bool{}
		var add func(refs []*lang.Ref)
		add = func(refs []*lang.Ref) {
			for _, r := range refs {
				key := r.Root + "." + r.Name
				if seen[key] {
					continue
				}
				seen[key] = true
				switch r.Root {
				case lang.RootInput:
					if in := p.InputsByName[r.Name]; in != nil {
						parts = append(parts, key+" "+lang.TypeString(in.Type.Type)+" "+valueText(in.Default)+" "+strconv.FormatBool(in.Sensitive))
					}
				case lang.RootMemory:
					if m := p.MemoriesByName[r.Name]; m != nil {
						parts = append(parts, key+" "+lang.TypeString(m.Type.Type)+" "+valueText(m.Default))
					}
				case lang.RootSecret:
					if sec := p.SecretsByName[r.Name]; sec != nil {
						parts = append(parts, key+" "+sec.Env)
					}
				case lang.RootLocal:
					if l := p.LocalsByName[r.Name]; l != nil {
						parts = append(parts, key+" "+hex.EncodeToString(l.sum[:]))
						add(l.Refs)
					}
				}
			}
		}
		add(c.stepRefs[s.Index])
		if s.Provider != nil {
			parts = append(parts, "provider."+s.Provider.Name+" "+s.Provider.Fingerprint())
		}
		if s.Collection != nil {
			parts = append(parts, "collection."+s.Collection.Name+" "+s.Collection.Fingerprint())
		}
		if s.Block != nil && s.Block.Builtin() && s.Block.Name == "mcp" {
			for _, m := range p.MCPServers {
				parts = append(parts, "mcp_server."+m.Name+" "+m.Fingerprint())
			}
		}
		slices.Sort(parts)
		s.env = sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	}
}

// valueText is a declared default as text: its JSON, or "-" for none.
func valueText(v cty.Value) string {
	if v == cty.NilVal {
		return "-"
	}
	b, err := jsonval.Marshal(v)
	if err != nil {
		return "?"
	}
	return string(b)
}

// StepFingerprints identify what each step does: its source (its
// arguments and meta-arguments), its block's definition, what the inputs,
// locals, memories and secrets it refers to are declared as, the versions
// of the tools it may call, and the fingerprints of the steps it depends
// on. A recorded result of a step whose fingerprint is the same fits the
// program; a resumed run keeps only those. A change elsewhere in the flow
// file — another step, an output, a block no step it depends on uses —
// changes no step's fingerprint but its own.
func (p *Program) StepFingerprints() map[string]string {
	out := make(map[string]string, len(p.Steps))
	var fp func(s *Step) string
	fp = func(s *Step) string {
		if v, ok := out[s.Name]; ok {
			return v
		}
		out[s.Name] = "" // a cycle, which the compiler reports
		h := sha256.New()
		p.writeVersion(h, s)
		deps := make([]string, 0, len(s.Deps))
		for _, d := range s.Deps {
			deps = append(deps, d.Name+"="+fp(d))
		}
		slices.Sort(deps)
		for _, d := range deps {
			h.Write([]byte("\x00" + d))
		}
		out[s.Name] = hex.EncodeToString(h.Sum(nil)[:8]) // enough to tell versions apart
		return out[s.Name]
	}
	for _, s := range p.Steps {
		fp(s)
	}
	return out
}

// writeVersion writes what a step itself does, without the steps it
// depends on: its source, what the names its expressions refer to are
// declared as, its block's definition and the versions of its tools.
func (p *Program) writeVersion(h io.Writer, s *Step) {
	sum := ""
	if s.sum != ([32]byte{}) {
		sum = hex.EncodeToString(s.sum[:])
	}
	h.Write([]byte("step-2\x00" + sum + "\x00" + hex.EncodeToString(s.env[:]) + "\x00" + p.Fingerprints[s.Block]))
	for _, t := range s.Tools {
		h.Write([]byte("\x00" + t.Ref() + "=" + t.Fingerprint))
	}
}

// StepVersions identify what each step itself does: StepFingerprints
// without the steps it depends on. Two versions of a flow whose step of a
// name has the same version run that step alike on the same values; a
// step that uses a flow (Step.Flow) is told apart by that flow's
// SourceHash, not by its version.
func (p *Program) StepVersions() map[string]string {
	out := make(map[string]string, len(p.Steps))
	for _, s := range p.Steps {
		h := sha256.New()
		p.writeVersion(h, s)
		out[s.Name] = hex.EncodeToString(h.Sum(nil))
	}
	return out
}

func (c *compilation) hashSources() {
	h := sha256.New()
	files := c.opts.Parser.Files()
	names := append([]string{c.prog.Filename}, c.prog.Registry.Files()...)
	for _, name := range names {
		var src []byte
		if f, ok := files[name]; ok && f != nil {
			src = f.Bytes
		} else if b, err := os.ReadFile(name); err == nil {
			src = b
		}
		h.Write([]byte(filepath.Base(name)))
		h.Write([]byte{0})
		h.Write(src)
		h.Write([]byte{0})
	}
	c.prog.SourceHash = hex.EncodeToString(h.Sum(nil))
}
