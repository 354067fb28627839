package thinker

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/llm"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/lang/diagjson"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// glueBlocks are built-ins every wire request may use besides the
// planned blocks: value passes a computed value on, approval waits for a
// person's decision.
var glueBlocks = []string{"value", "approval"}

// attempt is one flow made from a wire or repair reply, and how it
// compiled.
type attempt struct {
	name  string
	path  string
	src   []byte
	steps []string
	diags hcl.Diagnostics
	files map[string]*hcl.File
}

// wire asks for the flow, compiles it, and sends its diagnostics back
// through repair until it validates, at most MaxRepairs times. The flow
// is written when it validates, or with Force as it last was.
func (r *run) wire(ctx context.Context, intent string, plan []*planned) error {
	use := r.blocksInPlay(plan)
	var infos []obj
	for _, b := range use {
		var ids []string
		for _, p := range plan {
			if p.block == b {
				ids = append(ids, p.spec.ID)
			}
		}
		infos = append(infos, blockInfo(b, ids))
	}
	flows := siblingFlows(r.dir, r.base)
	base := []member{prop("intent", intent), prop("blocks", infos)}
	if len(flows) > 0 {
		base = append(base, prop("flows", flows))
	}
	if ex := r.example(); ex != nil {
		base = append(base, prop("worked_example", ex))
	}
	system := wireSystem
	var others []string // the blocks the edited flow uses that the registry lacks
	if r.base != nil {
		base = append(base, prop("current_flow", string(r.base.src)), prop("current_flow_json", r.base.wire))
		system = editSystem
		for _, name := range r.base.uses {
			if r.reg.Lookup(name) == nil {
				others = append(others, name)
			}
		}
	}
	tools := toolRefs(use, flows)
	schema, repairSchema := wireSchema(StageWire, use, tools, others...), wireSchema(StageRepair, use, tools, others...)

	r.stage(StageWire, 0, "", "", "")
	var reply wireReply
	raw, unknown, err := r.ask(ctx, request{schema: schema, system: system, messages: []llm.Message{user(message(base...))}}, &reply)
	if err != nil {
		return err
	}
	a := r.attempt(&reply, StageWire, 0, unknown)
	r.emit(Wired{Time: time.Now(), Flow: a.name, File: a.path, Steps: a.steps})
	for try := 1; a.diags.HasErrors(); try++ {
		r.emit(CompileFailed{Time: time.Now(), Try: try - 1, File: a.path, Diagnostics: a.diags, Files: a.files})
		if try > MaxRepairs {
			break
		}
		r.stage(StageRepair, try, "", "", "the flow has "+countErrors(a.diags))
		msg := message(append(base[:len(base):len(base)],
			prop("previous_reply", raw),
			prop("flow_file", a.path),
			prop("flow", string(a.src)),
			prop("diagnostics", diagjson.New(a.files, a.diags)),
			prop("problems", problems(a)),
		)...)
		reply = wireReply{}
		if raw, unknown, err = r.ask(ctx, request{schema: repairSchema, system: repairSystem, messages: []llm.Message{user(msg)}, try: try}, &reply); err != nil {
			r.res.Diagnostics, r.res.Files = a.diags, a.files
			return err
		}
		a = r.attempt(&reply, StageRepair, try, unknown)
		r.emit(Repaired{Time: time.Now(), Try: try, Flow: a.name, File: a.path, Steps: a.steps})
	}
	res := r.res
	res.Flow, res.Diagnostics, res.Files = a.name, a.diags, a.files
	valid := !a.diags.HasErrors()
	if r.base != nil {
		if !valid {
			return stageErr(StageRepair, nil, "the changed flow still has %s after %d repairs, so nothing was proposed", countErrors(a.diags), MaxRepairs)
		}
		return r.propose(intent, a, &reply)
	}
	if !valid && !r.opts.Force {
		return stageErr(StageRepair, nil, "the flow still has %s after %d repairs, so it was not written; pass --force to write the last attempt",
			countErrors(a.diags), MaxRepairs)
	}
	if err := writeFile(a.path, a.src); err != nil {
		return stageErr(StageWire, err, "writing the flow: %s", err)
	}
	res.File, res.Valid = a.path, valid
	found, created := map[string]string{}, map[string]string{}
	for _, p := range plan {
		if p.created {
			created[p.spec.ID] = p.block.Name
		} else {
			found[p.spec.ID] = p.block.Name
		}
	}
	r.emitUsage()
	r.emit(Complete{
		Time: time.Now(), Flow: a.name, File: a.path, Valid: valid, BlocksFound: found, BlocksCreated: created,
		BlockFiles: res.BlockFiles, Steps: a.steps, Diagnostics: a.diags, Files: a.files, Usage: res.Usage,
	})
	if !valid {
		return stageErr(StageRepair, nil, "the flow still has %s after %d repairs; it was written to %s anyway (--force)",
			countErrors(a.diags), MaxRepairs, a.path)
	}
	return nil
}

// blocksInPlay are the blocks a wire reply may use: the planned ones, in
// order, then the glue built-ins.
func (r *run) blocksInPlay(plan []*planned) []*blocks.Block {
	var out []*blocks.Block
	seen := map[*blocks.Block]bool{}
	add := func(b *blocks.Block) {
		if b != nil && !seen[b] {
			seen[b] = true
			out = append(out, b)
		}
	}
	for _, p := range plan {
		add(p.block)
	}
	if r.base != nil {
		for _, name := range r.base.uses {
			add(r.reg.Lookup(name))
		}
	}
	for _, name := range glueBlocks {
		add(r.reg.Lookup(name))
	}
	return out
}

// attempt makes the flow file of a reply and compiles it against the
// registry: the built-ins, blocks/ next to the flow (created blocks
// included) and the --registry directories. Expressions or types that do
// not parse are left out of the file and reported besides what the
// compiler finds in the rest, so that the diagnostics are those validate
// reports on the file that would be written, plus the parts it lacks.
func (r *run) attempt(reply *wireReply, stage string, try int, unknown []string) *attempt {
	a := &attempt{name: reply.Name}
	for _, s := range reply.Steps {
		a.steps = append(a.steps, s.Name)
	}
	var src []byte
	var fixes []string
	var diags hcl.Diagnostics
	registries := r.opts.Registries
	if r.base != nil {
		a.path = r.base.path
		keepUnsaid(&r.base.wire, reply)
		src, fixes, diags = applyEdit(r.base, reply, r.reg)
		registries = append(slices.Clip(registries), r.stageDir)
	} else {
		a.path = r.flowPath(reply.Name)
		src, fixes, diags = renderFlow(reply, r.reg)
	}
	a.src = src
	diags = append(diags, unknownDiags(unknown)...)
	if len(fixes) > 0 {
		r.emit(ReplyAdjusted{Time: time.Now(), Stage: stage, Try: try, Notes: fixes})
	}
	parser := lang.NewParser()
	_, d := compiler.Compile(a.path, compiler.Options{Parser: parser, RegistryDirs: registries, Source: src})
	diags = append(diags, d...)
	a.diags, a.files = compiler.Normalize(diags), parser.Files()
	return a
}

// flowInfo describes a flow of the flow's directory, which an llm step
// may call as a tool.
type flowInfo struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// siblingFlows are the flows of dir but the one being edited.
func siblingFlows(dir string, base *baseFlow) []flowInfo {
	paths, _ := filepath.Glob(filepath.Join(dir, "*.flow.hcl"))
	var out []flowInfo
	for _, p := range paths {
		if base != nil && filepath.Clean(p) == filepath.Clean(base.path) {
			continue
		}
		src, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		f, diags := hclsyntax.ParseConfig(src, p, hcl.InitialPos)
		if diags.HasErrors() {
			continue
		}
		for _, blk := range f.Body.(*hclsyntax.Body).Blocks {
			if blk.Type == "flow" && len(blk.Labels) == 1 {
				fi := flowInfo{Name: blk.Labels[0]}
				if a, ok := blk.Body.Attributes["description"]; ok {
					if v, d := a.Expr.Value(nil); !d.HasErrors() && v.Type() == cty.String && v.IsKnown() && !v.IsNull() {
						fi.Description = v.AsString()
					}
				}
				out = append(out, fi)
			}
		}
	}
	return out
}

// toolRefs are what an llm step of the flow may call: the blocks in play
// but approval (block.NAME), and the flows of the directory (flow.NAME).
func toolRefs(bs []*blocks.Block, flows []flowInfo) []string {
	var out []string
	for _, b := range bs {
		if b.Name != "approval" {
			out = append(out, lang.ToolBlock+"."+b.Name)
		}
	}
	for _, f := range flows {
		out = append(out, lang.ToolFlow+"."+f.Name)
	}
	return out
}

// flowPath is where the flow goes: Options.Out, else NAME.flow.hcl in the
// directory, NAME_2.flow.hcl and so on when that file exists.
func (r *run) flowPath(name string) string {
	if r.opts.Out != "" {
		return r.opts.Out
	}
	stem := fileStem(name)
	for n := 1; ; n++ {
		s := stem
		if n > 1 {
			s = fmt.Sprintf("%s_%d", stem, n)
		}
		p := filepath.Join(r.dir, s+".flow.hcl")
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			return p
		}
	}
}

// fileStem makes a file name from a flow's name: its name when valid,
// else the name's letters, digits and underscores.
func fileStem(name string) string {
	if lang.ValidName(name) {
		return name
	}
	s := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_':
			return r
		case r >= 'A' && r <= 'Z':
			return r - 'A' + 'a'
		}
		return '_'
	}, name)
	s = strings.Trim(s, "_")
	if s == "" {
		return "flow"
	}
	return s
}

func countErrors(diags hcl.Diagnostics) string {
	n := 0
	for _, d := range diags {
		if d.Severity == hcl.DiagError {
			n++
		}
	}
	if n == 1 {
		return "1 error"
	}
	return fmt.Sprintf("%d errors", n)
}

// propose makes the proposal of an Edit run from its last, valid
// attempt: the flow file and the blocks created for it, with the change
// step by step and the unified diff, staged with Options.Stage.
func (r *run) propose(intent string, a *attempt, reply *wireReply) error {
	change := changeOf(&r.base.wire, reply)
	if change.Empty() && len(r.staged) == 0 {
		return stageErr(StageWire, nil, "the reply changes nothing in %s; say what should change", r.base.path)
	}
	p := &Proposal{Flow: a.name, FlowFile: r.base.path, Intent: intent, Change: change}
	p.Files = append(p.Files, ProposedFile{Path: r.base.path, Base: r.base.src, Content: a.src})
	p.Files = append(p.Files, r.staged...)
	var diff strings.Builder
	for _, f := range p.Files {
		name := f.Path
		if rel, err := filepath.Rel(r.dir, f.Path); err == nil {
			name = rel // as the flow's directory has it
		}
		diff.WriteString(unifiedDiff(filepath.ToSlash(name), f.Base, f.Content))
	}
	p.Diff = diff.String()
	if r.opts.Stage != nil {
		id, err := r.opts.Stage(p)
		if err != nil {
			return stageErr(StageWire, err, "staging the proposal: %s", err)
		}
		p.ID = id
	}
	r.res.Proposal = p
	r.emitUsage()
	r.emit(Proposed{Time: time.Now(), ID: p.ID, Flow: p.Flow, File: p.FlowFile, Change: change, Diff: p.Diff, Usage: r.res.Usage})
	return nil
}
