// Package flowdoc is what flowctl docs and graph say of flows and blocks,
// as data: the documentation of the flows and blocks under some paths
// (Collect: their inputs, outputs, secrets, blocks, schedules, approvals
// and tests) and the graph of a flow's steps (NewStepGraph). Writing them
// (Markdown, JSON, Graphviz DOT, Mermaid) is the command's views'.
package flowdoc

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/project"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// Docs is the documentation of flows and blocks (docs --format json
// prints it).
type Docs struct {
	Flows  []Flow  `json:"flows"`
	Blocks []Block `json:"blocks"`
}

// Flow is a flow's documentation. Its paths (File, a block's
// DefinedIn, a test's File) are relative to the directory of --out, else
// to the working directory.
type Flow struct {
	Name        string `json:"name"`
	File        string `json:"file"`
	Description string `json:"description,omitempty"`
	// Inputs and Outputs have the types the compiler infers; Secrets
	// their environment variables.
	Inputs  []Field  `json:"inputs"`
	Outputs []Field  `json:"outputs"`
	Secrets []Secret `json:"secrets"`
	// Providers are the model servers it declares, with the llm steps
	// that name each.
	Providers []Provider `json:"providers,omitempty"`
	// Collections are the vector collections it declares, with the
	// steps that name each.
	Collections []Collection `json:"collections,omitempty"`
	// Blocks are the blocks its steps use, in the order of their first
	// step, each with the steps that use it.
	Blocks    []UsedBlock `json:"blocks"`
	Schedules []Schedule  `json:"schedules"`
	Triggers  []Trigger   `json:"triggers"`
	// Limits are its per-key limits on runs (concurrency, rate_limit,
	// debounce).
	Limits    []Limit    `json:"limits,omitempty"`
	Approvals []Approval `json:"approvals"` // its approval steps
	Steps     int        `json:"steps"`     // how many
	Mermaid   string     `json:"mermaid"`   // the step graph, as graph --format mermaid draws it
	Tests     []Test     `json:"tests"`     // the tests that run it
}

// A Field is an input or output of a flow or block.
type Field struct {
	Name        string  `json:"name"`
	Type        string  `json:"type"`
	Default     *string `json:"default,omitempty"` // HCL; nil when required (or an output)
	Required    bool    `json:"required,omitempty"`
	Sensitive   bool    `json:"sensitive,omitempty"`
	Description string  `json:"description,omitempty"`
}

// A Provider is a model server a flow declares.
type Provider struct {
	Name        string   `json:"name"`
	BaseURL     string   `json:"base_url"`
	APIKey      string   `json:"api_key,omitempty"` // the secret it is read from
	RPM         int      `json:"rpm,omitempty"`
	TPM         int      `json:"tpm,omitempty"`
	Concurrency int      `json:"concurrency,omitempty"`
	Models      []string `json:"models,omitempty"` // those it declares prices of
	Steps       []string `json:"steps"`
	Description string   `json:"description,omitempty"`
}

// A Collection is a vector collection a flow declares (docs/retrieval.md).
type Collection struct {
	Name        string   `json:"name"`
	Dimensions  int      `json:"dimensions"`
	Distance    string   `json:"distance"`
	Steps       []string `json:"steps"`
	Description string   `json:"description,omitempty"`
}

// A Secret is a secret a flow reads, with its environment variable.
type Secret struct {
	Name        string `json:"name"`
	Env         string `json:"env"`
	Description string `json:"description,omitempty"`
}

// A UsedBlock is a block a flow's steps use.
type UsedBlock struct {
	Name        string   `json:"name"`
	Runtime     string   `json:"runtime"`
	Description string   `json:"description,omitempty"`
	DefinedIn   string   `json:"defined_in,omitempty"` // "" for built-ins
	Steps       []string `json:"steps"`
}

// A Schedule is a schedule of a flow.
type Schedule struct {
	Name     string `json:"name"`
	Cron     string `json:"cron"`
	Timezone string `json:"timezone"`
}

// A Trigger is a trigger of a flow: a webhook (Method and Path, Verify,
// Respond) or the end of another flow's runs (After, Status).
type Trigger struct {
	Name    string   `json:"name"`
	Method  string   `json:"method,omitempty"`
	Path    string   `json:"path,omitempty"`
	Verify  string   `json:"verify,omitempty"`
	Respond string   `json:"respond,omitempty"`
	After   string   `json:"after_flow,omitempty"`
	Status  []string `json:"status,omitempty"`
}

// A Limit is a per-key limit on a flow's runs: its kind (the block's
// type), its key as written, its limit and period where it has them.
type Limit struct {
	Kind   string `json:"kind"`
	Key    string `json:"key"`
	Limit  int    `json:"limit,omitempty"`
	Period string `json:"period,omitempty"`
}

// An Approval is an approval step of a flow, with its message.
type Approval struct {
	Step    string `json:"step"`
	Message string `json:"message,omitempty"`
}

// A Test is a test that runs a flow, and its file.
type Test struct {
	Name string `json:"name"`
	File string `json:"file"`
}

// Block is the documentation of a block of a block file, or of
// one a flow file defines (File is then the flow's).
type Block struct {
	Name        string `json:"name"`
	File        string `json:"file"`
	Runtime     string `json:"runtime"`
	Description string `json:"description,omitempty"`
	// UseWhen and Tags are what blocks search and the thinker match,
	// beside the description.
	UseWhen string   `json:"use_when,omitempty"`
	Tags    []string `json:"tags,omitempty"`
	Inputs  []Field  `json:"inputs"`
	Outputs []Field  `json:"outputs"`
	// Dependencies are its requirements, packages or require
	// (lang.BlockDef.Dependencies), which flowctl lock pins.
	Dependencies []string `json:"dependencies,omitempty"`
	// Examples are the block's example blocks, their input and output
	// as HCL writes them.
	Examples []Example `json:"examples"`
}

// An Example is an example of a block, as HCL writes it.
type Example struct {
	Input  string `json:"input"`
	Output string `json:"output"`
}

// Collect compiles the flows and reads the block and test files under
// the paths. Paths in the result are relative to base. mermaid draws a
// flow's step graph (Flow.Mermaid); nil leaves it empty.
func Collect(paths, registries []string, base string, mermaid func(*compiler.Program, *StepGraph) string) (*Docs, map[string]*hcl.File, hcl.Diagnostics) {
	parser := lang.NewParser()
	rel := func(p string) string {
		if r, err := filepath.Rel(base, lang.AbsPath(p)); err == nil {
			return filepath.ToSlash(r)
		}
		return filepath.ToSlash(p)
	}
	// A test file given by path documents the flows its tests run, with
	// those tests; a flow file's tests are found in its directory.
	var diags hcl.Diagnostics
	var testFiles, testDirs, others []string
	for _, p := range paths {
		switch {
		case lang.IsTestFile(p):
			testFiles = append(testFiles, p)
		case isFile(p):
			others = append(others, p)
			testDirs = append(testDirs, filepath.Dir(p))
		default:
			others = append(others, p)
			testDirs = append(testDirs, p)
		}
	}
	tests := docTests(parser, testDirs, rel, &diags)
	var flows, blockFiles []string
	if len(others) > 0 {
		var dg hcl.Diagnostics
		flows, blockFiles, dg = project.FindFlowsAndBlocks(others, false)
		diags = append(diags, dg...)
	}
	if len(testFiles) > 0 {
		byFile := docTests(parser, testFiles, rel, &diags)
		for flow, ts := range byFile {
			if !slices.ContainsFunc(flows, func(f string) bool { return lang.AbsPath(f) == flow }) {
				flows = append(flows, flow)
			}
			tests[flow] = ts
		}
		slices.Sort(flows)
	}
	d := &Docs{Flows: []Flow{}, Blocks: []Block{}}
	for _, f := range flows {
		prog, dg := compiler.Compile(f, compiler.Options{Parser: parser, RegistryDirs: registries})
		diags = append(diags, dg...)
		if dg.HasErrors() {
			continue
		}
		d.Flows = append(d.Flows, flowDoc(prog, rel, tests[lang.AbsPath(f)], mermaid))
		for _, def := range prog.File.Blocks {
			b := prog.Registry.Lookup(def.Name)
			if b != nil && b.Def == def {
				d.Blocks = append(d.Blocks, blockDoc(b, rel))
			}
		}
	}
	for _, bf := range blockFiles {
		defs, dg := blocks.ParseBlockFile(parser, bf)
		diags = append(diags, dg...)
		for _, def := range defs {
			b, dg := blocks.FromDef(def)
			diags = append(diags, dg...)
			d.Blocks = append(d.Blocks, blockDoc(b, rel))
		}
	}
	return d, parser.Files(), compiler.Normalize(diags)
}

// isFile reports whether p names a file (not a directory).
func isFile(p string) bool {
	info, err := os.Stat(p)
	return err == nil && !info.IsDir()
}

// docTests finds the tests under the paths, by the flow file they run.
func docTests(parser *lang.Parser, paths []string, rel func(string) string, diags *hcl.Diagnostics) map[string][]Test {
	out := map[string][]Test{}
	files, _ := project.Find(paths, lang.IsTestFile)
	for _, file := range files {
		if !lang.IsTestFile(file) {
			continue // a flow or block file given by path
		}
		f, d := parser.ParseFile(file)
		*diags = append(*diags, d...)
		if d.HasErrors() {
			continue
		}
		defs, d := lang.DecodeTestFile(f)
		*diags = append(*diags, d...)
		for _, def := range defs {
			flow, d := compiler.TestFlowFile(file, def)
			*diags = append(*diags, d...)
			if !d.HasErrors() {
				out[lang.AbsPath(flow)] = append(out[lang.AbsPath(flow)], Test{Name: def.Name, File: rel(file)})
			}
		}
	}
	return out
}

func flowDoc(p *compiler.Program, rel func(string) string, tests []Test, mermaid func(*compiler.Program, *StepGraph) string) Flow {
	fd := Flow{
		Name: p.Flow.Name, File: rel(p.Filename), Description: p.Flow.Description, Steps: len(p.Steps),
		Inputs: []Field{}, Outputs: []Field{}, Secrets: []Secret{}, Blocks: []UsedBlock{},
		Schedules: []Schedule{}, Triggers: []Trigger{}, Approvals: []Approval{}, Tests: tests,
	}
	if fd.Tests == nil {
		fd.Tests = []Test{}
	}
	for _, in := range p.Inputs {
		f := Field{Name: in.Name, Type: lang.TypeString(in.Type.Type), Required: in.Required(), Sensitive: in.Sensitive, Description: in.Description}
		if !in.Required() {
			v := hclText(in.Default)
			f.Default = &v
		}
		fd.Inputs = append(fd.Inputs, f)
	}
	for _, o := range p.Outputs {
		ty, ok := p.OutputTypes[o.Name]
		if !ok {
			ty = cty.DynamicPseudoType
		}
		fd.Outputs = append(fd.Outputs, Field{Name: o.Name, Type: lang.TypeString(ty), Sensitive: o.Sensitive, Description: o.Description})
	}
	for _, sec := range p.Secrets {
		fd.Secrets = append(fd.Secrets, Secret{Name: sec.Name, Env: sec.Env, Description: sec.Description})
	}
	for _, pr := range p.Providers {
		pd := Provider{Name: pr.Name, BaseURL: pr.BaseURL, RPM: pr.RPM, TPM: pr.TPM, Concurrency: pr.Concurrency,
			Models: lang.SortedKeys(pr.Prices), Steps: []string{}, Description: pr.Description}
		if k := pr.APIKeySecret(); k != "" {
			pd.APIKey = "secret." + k
		}
		for _, st := range p.Steps {
			if st.Provider == pr {
				pd.Steps = append(pd.Steps, st.Name)
			}
		}
		fd.Providers = append(fd.Providers, pd)
	}
	for _, c := range p.Collections {
		cd := Collection{Name: c.Name, Dimensions: c.Dimensions, Distance: c.Distance, Steps: []string{}, Description: c.Description}
		for _, st := range p.Steps {
			if st.Collection == c {
				cd.Steps = append(cd.Steps, st.Name)
			}
		}
		fd.Collections = append(fd.Collections, cd)
	}
	used := map[string]int{}
	for _, st := range p.Steps {
		b := st.Block
		i, ok := used[b.Name]
		if !ok {
			ub := UsedBlock{Name: b.Name, Runtime: b.Runtime, Description: b.Description}
			switch {
			case st.Flow != nil:
				ub.DefinedIn = rel(st.Flow.Filename)
			case b.Def != nil:
				ub.DefinedIn = rel(b.Def.DeclRange.Filename)
			}
			i, used[b.Name] = len(fd.Blocks), len(fd.Blocks)
			fd.Blocks = append(fd.Blocks, ub)
		}
		fd.Blocks[i].Steps = append(fd.Blocks[i].Steps, st.Name)
		if b.Builtin() && b.Name == "approval" {
			a := Approval{Step: st.Name}
			if m := st.Arg("message"); m != nil {
				if v, d := m.Expr.Value(nil); !d.HasErrors() && v.Type() == cty.String && v.IsKnown() && !v.IsNull() {
					a.Message = v.AsString()
				} else {
					a.Message = strings.TrimSpace(string(hclwrite.Format(m.Expr.Range().SliceBytes(fileBytes(m.Expr.Range().Filename)))))
				}
			}
			fd.Approvals = append(fd.Approvals, a)
		}
	}
	for _, sc := range p.Schedules {
		tz := "UTC"
		if sc.Location != nil {
			tz = sc.Location.String()
		}
		fd.Schedules = append(fd.Schedules, Schedule{Name: sc.Name, Cron: sc.Cron, Timezone: tz})
	}
	for _, t := range p.Triggers {
		td := Trigger{Name: t.Name}
		if w := t.Webhook; w != nil {
			td.Method, td.Path, td.Verify, td.Respond = w.Method, w.Path, w.Verify, t.Respond
			if t.Respond == lang.RespondOutput {
				td.Respond = "output." + t.Output
			}
		} else if t.OnRun != nil {
			td.After, td.Status = t.OnRun.Flow, t.OnRun.Status
		}
		fd.Triggers = append(fd.Triggers, td)
	}
	fd.Limits = limitsOf(p)
	if mermaid != nil {
		fd.Mermaid = mermaid(p, NewStepGraph(p, false))
	}
	return fd
}

// limitsOf are the limits of a flow's runs, in the docs' order.
func limitsOf(p *compiler.Program) []Limit {
	key := func(e hcl.Expression) string {
		if e == nil {
			return ""
		}
		return strings.TrimSpace(string(e.Range().SliceBytes(fileBytes(e.Range().Filename))))
	}
	var out []Limit
	if c := p.Limits.Concurrency; c != nil {
		out = append(out, Limit{Kind: "concurrency", Key: key(c.Key), Limit: c.Limit})
	}
	if r := p.Limits.RateLimit; r != nil {
		out = append(out, Limit{Kind: "rate_limit", Key: key(r.Key), Limit: r.Limit, Period: shortDuration(r.Period)})
	}
	if d := p.Limits.Debounce; d != nil {
		out = append(out, Limit{Kind: "debounce", Key: key(d.Key), Period: shortDuration(d.Period)})
	}
	return out
}

// shortDuration is d as a flow writes it: 1m, not 1m0s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

func fileBytes(name string) []byte {
	b, _ := os.ReadFile(name)
	return b
}

func blockDoc(b *blocks.Block, rel func(string) string) Block {
	bd := Block{Name: b.Name, Runtime: b.Runtime, Description: b.Description, UseWhen: b.UseWhen, Tags: b.Tags,
		Inputs: []Field{}, Outputs: []Field{}, Examples: []Example{}}
	if b.Def != nil {
		bd.File = rel(b.Def.DeclRange.Filename)
		bd.Dependencies = b.Def.Dependencies()
		for _, ex := range b.Def.Examples {
			bd.Examples = append(bd.Examples, Example{Input: hclText(ex.Input), Output: hclText(ex.Output)})
		}
	}
	for _, in := range b.Inputs {
		f := Field{Name: in.Name, Type: lang.TypeString(in.Type.Type), Required: in.Required(), Description: in.Description}
		if !in.Required() {
			v := hclText(in.Default)
			f.Default = &v
		}
		bd.Inputs = append(bd.Inputs, f)
	}
	for _, o := range b.Outputs {
		bd.Outputs = append(bd.Outputs, Field{Name: o.Name, Type: lang.TypeString(o.Type.Type), Description: o.Description})
	}
	return bd
}

// hclText is a value as HCL would write it.
func hclText(v cty.Value) string {
	if v == cty.NilVal || v.IsNull() {
		return "null"
	}
	if !v.IsWhollyKnown() {
		return "(known when the flow runs)"
	}
	return strings.TrimSpace(string(hclwrite.TokensForValue(v).Bytes()))
}
