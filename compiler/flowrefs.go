package compiler

import (
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// flowFileSuffix ends the name of every flow file.
const flowFileSuffix = ".flow.hcl"

// flowSet is what the compilations of one flow and of the flows it uses
// share: the flows compiled so far, and the chain of flows being compiled,
// outermost first, to report a flow that uses itself.
type flowSet struct {
	chain    []string // absolute paths
	compiled map[string]*flowResult
	// names are the names of the flows of the files read so far, by
	// absolute path ("": the file declares none), so that a file whose
	// tree was released (Options.Release) is not parsed again for it.
	names map[string]string
}

func newFlowSet(filename string) *flowSet {
	self, _ := filepath.Abs(filename)
	return &flowSet{chain: []string{self}, compiled: map[string]*flowResult{}, names: map[string]string{}}
}

type flowResult struct {
	prog  *Program
	diags hcl.Diagnostics
}

// compileFlow is Compile, for the flows a flow uses (set in init: the
// passes refer to this file's functions, which would make Compile refer to
// itself while passes is initialized).
var compileFlow func(string, Options) (*Program, hcl.Diagnostics)

func init() { compileFlow = Compile }

// flowByName finds the flow named name in the flow's directory, then in
// the registry directories, compiles it (once per compilation) and
// returns it. The diagnostics are at rng, where the flow is named.
func (c *compilation) flowByName(name string, rng hcl.Range) (*Program, hcl.Diagnostics) {
	set := c.opts.flows
	dirs := append([]string{c.prog.Dir}, c.opts.RegistryDirs...)
	var known []string
	file := ""
	for _, dir := range dirs {
		paths := c.opts.Parser.Glob(filepath.Join(dir, "*"+flowFileSuffix))
		sort.Strings(paths)
		for _, path := range paths {
			n := c.flowName(path)
			if n == "" {
				continue
			}
			known = append(known, n)
			if n == name && file == "" {
				file, _ = filepath.Abs(path)
			}
		}
	}
	if file == "" {
		return nil, lang.Error(rng, "Unknown flow",
			"There is no flow named %q in the flow's directory or the registry directories; the flows there are %s.%s",
			name, listOrNone(known), lang.Suggest(name, known))
	}
	if i := slices.Index(set.chain, file); i >= 0 {
		var names []string
		for _, f := range append(set.chain[i:], file) {
			names = append(names, c.flowName(f))
		}
		return nil, lang.Error(rng, "Flow cycle",
			"Flows use each other in a cycle: %s. A flow cannot use itself, directly or through other flows.",
			strings.Join(names, " → "))
	}
	r := set.compiled[file]
	if r == nil {
		opts := c.opts
		opts.Source = nil
		opts.flows = &flowSet{chain: append(slices.Clone(set.chain), file), compiled: set.compiled, names: set.names}
		prog, diags := compileFlow(file, opts)
		r = &flowResult{prog: prog, diags: diags}
		set.compiled[file] = r
	}
	if r.diags.HasErrors() {
		first := r.diags.Errs()[0].(*hcl.Diagnostic)
		if first.Summary == "Flow cycle" {
			return nil, lang.Error(rng, first.Summary, "%s", first.Detail)
		}
		where := ""
		if first.Subject != nil {
			where = " (" + lang.RangeString(*first.Subject) + ")"
		}
		return nil, lang.Error(rng, "Flow does not compile",
			"Flow %q (%s) has errors, the first: %s%s. Run flowctl validate %s to see them all.",
			name, file, strings.TrimSuffix(first.Summary, "."), where, file)
	}
	return r.prog, nil
}

// flowName reads the name of the flow a file declares, "" when it
// declares none (or does not parse).
func (c *compilation) flowName(path string) string {
	abs, _ := filepath.Abs(path)
	if n, ok := c.opts.flows.names[abs]; ok {
		return n
	}
	if !c.opts.Parser.Exists(path) {
		return ""
	}
	f, _ := c.opts.Parser.ParseFile(path)
	if f == nil {
		return ""
	}
	body, ok := f.Body.(*hclsyntax.Body)
	if !ok {
		return ""
	}
	n := ""
	for _, b := range body.Blocks {
		if b.Type == "flow" && len(b.Labels) == 1 {
			n = b.Labels[0]
			break
		}
	}
	c.opts.flows.names[abs] = n
	return n
}

// Tool is a flow or a block an llm step may call (its tools argument).
type Tool struct {
	Name  string // the flow's or block's name, which the model calls
	Range hcl.Range
	Flow  *Program        // a flow tool
	Block *blocks.Block   // a block tool
	MCP   *lang.MCPServer // a tool of an MCP server, which it describes at run time
	// Fingerprint identifies the tool's version, for the cache key of
	// the step that may call it.
	Fingerprint string
	// Given are the inputs with a default of a flow tool that the step's
	// tool_inputs lets the model give; the model sees and gives only
	// these and the inputs without a default (ModelInputs).
	Given map[string]bool
}

// ModelInputs are the inputs of a flow tool the model sees and may give:
// those without a default, and those the step's tool_inputs names; never
// a sensitive one. What the flow's author gave a default stays as it is
// unless the step says otherwise.
func (t *Tool) ModelInputs() []*lang.Input {
	if t.Flow == nil {
		return nil
	}
	var out []*lang.Input
	for _, in := range t.Flow.Inputs {
		if !in.Sensitive && (in.Default == cty.NilVal || t.Given[in.Name]) {
			out = append(out, in)
		}
	}
	return out
}

// Ref is how the tools argument names the tool: flow.NAME, block.NAME
// or mcp.SERVER.TOOL.
func (t *Tool) Ref() string {
	switch {
	case t.Flow != nil:
		return lang.ToolFlow + "." + t.Name
	case t.MCP != nil:
		return lang.ToolMCP + "." + t.MCP.Name + "." + t.Name
	}
	return lang.ToolBlock + "." + t.Name
}

// Description is what the model reads of the tool; "" for an MCP
// server's tool, which the server describes.
func (t *Tool) Description() string {
	switch {
	case t.Flow != nil:
		return t.Flow.Flow.Description
	case t.MCP != nil:
		return ""
	}
	d := t.Block.Description
	if t.Block.UseWhen != "" {
		if d != "" {
			d = strings.TrimSuffix(d, ".") + ". "
		}
		d += "Use when: " + t.Block.UseWhen
	}
	return d
}

// ToolCallLimit is how many tool calls the step's model may make: its
// max_tool_calls, else lang.DefaultMaxToolCalls; 0 without tools.
func (s *Step) ToolCallLimit() int {
	switch {
	case len(s.Tools) == 0:
		return 0
	case s.MaxToolCalls > 0:
		return s.MaxToolCalls
	case s.Block.Def != nil && s.Block.Def.MaxToolCalls > 0:
		return s.Block.Def.MaxToolCalls
	}
	return lang.DefaultMaxToolCalls
}

// resolveTools checks a step's tools argument, and its block's, and finds
// each tool.
func (c *compilation) resolveTools(s *Step) hcl.Diagnostics {
	if s.Block == nil {
		return nil
	}
	refs := s.ToolRefs
	if s.Block.Def != nil {
		refs = append(slices.Clip(s.Block.Def.ToolRefs), refs...)
	}
	if refs == nil {
		return nil
	}
	if s.ToolRefs != nil && !s.Block.IsLLM() {
		return lang.Error(*s.ToolsRange, "Tools on a step that is not llm",
			"Step %q uses block %q; only llm steps call tools, which the model chooses.", s.Name, s.Block.Name)
	}
	var diags hcl.Diagnostics
	seen := map[string]hcl.Range{}
	for _, tr := range refs {
		name := tr[1].(hcl.TraverseAttr).Name
		rng := tr.SourceRange()
		t := &Tool{Name: name, Range: rng}
		switch tr.RootName() {
		case lang.ToolMCP:
			srv := c.prog.MCPServersByName[name]
			if srv == nil {
				diags = append(diags, unknownMCPServer(c.prog, name, rng)...)
				continue
			}
			t.Name, t.MCP, t.Fingerprint = tr[2].(hcl.TraverseAttr).Name, srv, srv.Fingerprint()
			name = t.Name
		case lang.ToolBlock:
			b := c.prog.Registry.Lookup(name)
			switch {
			case b == nil:
				diags = append(diags, c.unknownBlock(name, rng)...)
				continue
			case b.Builtin() && b.Name == "approval":
				diags = append(diags, lang.Error(rng, "Invalid tool",
					"An approval waits for a person, so a model cannot call it as a tool.")...)
				continue
			}
			t.Block, t.Fingerprint = b, c.prog.Fingerprints[b]
		default:
			prog, d := c.flowByName(name, rng)
			if d.HasErrors() {
				diags = append(diags, d...)
				continue
			}
			for _, in := range prog.Inputs {
				if in.Sensitive && in.Default == cty.NilVal {
					diags = append(diags, lang.Error(rng, "Flow cannot be a tool",
						"Flow %q requires the sensitive input %q, which a model may not give; give the input a default, or make it a secret of that flow.", name, in.Name)...)
				}
			}
			t.Flow, t.Fingerprint = prog, prog.SourceHash
		}
		if first, ok := seen[name]; ok {
			diags = append(diags, lang.Error(rng, "Duplicate tool",
				"Step %q already has a tool named %q at %s; the model tells tools apart by name.", s.Name, name, lang.RangeString(first))...)
			continue
		}
		seen[name] = rng
		s.Tools = append(s.Tools, t)
	}
	return append(diags, resolveToolInputs(s)...)
}

// resolveToolInputs checks a step's tool_inputs: each names a flow tool of
// the step and inputs of that flow the model may give.
func resolveToolInputs(s *Step) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, ti := range s.ToolInputs {
		var tool *Tool
		var names []string
		for _, t := range s.Tools {
			if t.Flow != nil {
				names = append(names, t.Name)
				if t.Name == ti.Tool {
					tool = t
				}
			}
		}
		if tool == nil {
			diags = append(diags, lang.Error(ti.ToolRange, "Unknown flow tool",
				"Step %q has no flow tool %q; tool_inputs names inputs of the flows in its tools (a block's or an MCP tool's inputs are all the model's already).%s",
				s.Name, ti.Tool, lang.Suggest(ti.Tool, names))...)
			continue
		}
		tool.Given = map[string]bool{}
		for i, name := range ti.Inputs {
			in := tool.Flow.InputsByName[name]
			switch {
			case in == nil:
				diags = append(diags, lang.Error(ti.InputRanges[i], "Unknown input",
					"Flow %q has no input %q.%s", tool.Flow.Flow.Name, name, lang.Suggest(name, lang.SortedKeys(tool.Flow.InputsByName)))...)
			case in.Sensitive:
				diags = append(diags, lang.Error(ti.InputRanges[i], "Sensitive tool input",
					"Input %q of flow %q is sensitive, which a model may not give.", name, tool.Flow.Flow.Name)...)
			default:
				tool.Given[name] = true
			}
		}
	}
	return diags
}

// FlowBlock is the block of a step that uses a flow (use = "flow.NAME"):
// its arguments are the flow's inputs, its outputs the flow's, of the
// types the compiler knows; its result is not cached (the flow's steps
// are); and anything given a sensitive value may return it, but an input
// the flow declares sensitive (Step.PassesSensitive).
func FlowBlock(p *Program) *blocks.Block {
	b := &blocks.Block{
		Name: lang.ToolFlow + "." + p.Flow.Name, Runtime: blocks.RuntimeFlow, Description: p.Flow.Description,
		PropagatesSensitive: true,
	}
	for _, in := range p.Inputs {
		b.Inputs = append(b.Inputs, &lang.Field{Name: in.Name, Type: in.Type, Default: in.Default,
			Description: in.Description, NameRange: in.NameRange, DeclRange: in.DeclRange})
	}
	for _, o := range p.Outputs {
		ty, ok := p.OutputTypes[o.Name]
		if !ok {
			ty = cty.DynamicPseudoType
		}
		b.Outputs = append(b.Outputs, &lang.Field{Name: o.Name, Type: lang.TypeSpec{Type: ty},
			Description: o.Description, NameRange: o.NameRange, DeclRange: o.DeclRange})
	}
	return b
}

// PassesSensitive reports whether the step's outputs may carry a
// sensitive value given to its input name: any input of a block that
// propagates sensitive values, but of a flow only the inputs it does not
// declare sensitive. A flow's own compilation refuses an output derived
// from its sensitive inputs that does not say sensitive = true, and such
// an output makes every output of the step sensitive (SensitiveOutputs):
// a credential given to its sensitive input stays inside it.
func (s *Step) PassesSensitive(input string) bool {
	if !s.Block.PropagatesSensitive {
		return false
	}
	if s.Flow != nil {
		if in := s.Flow.InputsByName[input]; in != nil && in.Sensitive {
			return false
		}
	}
	return true
}

// SensitiveOutputs reports whether any output of the flow is sensitive.
func (p *Program) SensitiveOutputs() bool {
	for _, o := range p.Outputs {
		if o.Sensitive {
			return true
		}
	}
	return false
}

// SecretNames are the names of the secrets the flow declares and those
// the flows it uses declare (as a step's block or as a tool, at any
// depth): the secrets a run of it may be given.
func (p *Program) SecretNames() map[string]bool {
	names := map[string]bool{}
	seen := map[*Program]bool{}
	var walk func(*Program)
	walk = func(p *Program) {
		if p == nil || seen[p] {
			return
		}
		seen[p] = true
		for name := range p.SecretsByName {
			names[name] = true
		}
		for _, s := range p.Steps {
			walk(s.Flow)
			for _, t := range s.Tools {
				walk(t.Flow)
			}
		}
	}
	walk(p)
	return names
}
