package compiler

import (
	"path/filepath"
	"slices"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
)

// decode parses the flow file, decodes it, checks names for duplicates and
// loads the registry.
func (c *compilation) decode() hcl.Diagnostics {
	p := c.prog
	var f *hcl.File
	var diags hcl.Diagnostics
	if c.opts.Source != nil {
		f, diags = c.opts.Parser.ParseSource(c.opts.Source, p.Filename)
	} else {
		f, diags = c.opts.Parser.ParseFile(p.Filename)
	}
	decodeFile := lang.DecodeFlowFile
	if c.opts.Release {
		c.opts.Parser.ReleaseFile(p.Filename) // f is now this decoding's alone
		decodeFile = lang.ConsumeFlowFile
	}
	if diags.HasErrors() {
		return diags
	}
	file, d := decodeFile(f, p.Filename)
	diags = c.opts.Parser.PinSources(file.Blocks, append(diags, d...))
	p.File = file
	diags = append(diags, overrideSteps(file, c.opts.Overrides)...)
	p.Functions = lang.FunctionsReporting(p.Dir, c.opts.OnFileRead)

	switch len(file.Flows) {
	case 0:
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Missing flow block",
			Detail:   "A flow file needs exactly one flow block naming the flow, such as flow \"research\" {}.",
			Subject:  hcl.Range{Filename: p.Filename, Start: hcl.InitialPos, End: hcl.InitialPos}.Ptr(),
		})
		p.Flow = &lang.Flow{Name: "unnamed"}
	default:
		p.Flow = file.Flows[0]
		for _, fl := range file.Flows[1:] {
			diags = append(diags, lang.Error(fl.DeclRange, "Duplicate flow block",
				"A flow file holds exactly one flow; this file already declares flow %q at %s.",
				p.Flow.Name, lang.RangeString(p.Flow.DeclRange))...)
		}
	}

	p.Inputs, p.Secrets, p.Memories, p.Outputs = file.Inputs, file.Secrets, file.Memories, file.Outputs
	p.Schedules, p.MCPServers, p.Triggers = file.Schedules, file.MCPServers, file.Triggers
	p.Limits = file.Limits
	if abs, err := filepath.Abs(p.Filename); err == nil {
		name := ""
		if len(file.Flows) > 0 {
			name = file.Flows[0].Name
		}
		c.opts.flows.names[abs] = name // what flowName would read
	}
	p.Providers = file.Providers
	p.Collections = file.Collections
	p.CollectionsByName = indexNamed(file.Collections, "collection", func(v *lang.Collection) (string, hcl.Range) { return v.Name, v.NameRange }, &diags)
	p.ProvidersByName = indexNamed(file.Providers, "provider", func(v *lang.Provider) (string, hcl.Range) { return v.Name, v.NameRange }, &diags)
	p.MCPServersByName = indexNamed(file.MCPServers, "mcp_server", func(v *lang.MCPServer) (string, hcl.Range) { return v.Name, v.NameRange }, &diags)
	indexNamed(file.Triggers, "trigger", func(v *lang.Trigger) (string, hcl.Range) { return v.Name, v.NameRange }, &diags)
	indexNamed(file.Schedules, "schedule", func(v *lang.Schedule) (string, hcl.Range) { return v.Name, v.NameRange }, &diags)
	p.InputsByName = indexNamed(file.Inputs, "input", func(v *lang.Input) (string, hcl.Range) { return v.Name, v.NameRange }, &diags)
	p.SecretsByName = indexNamed(file.Secrets, "secret", func(v *lang.Secret) (string, hcl.Range) { return v.Name, v.NameRange }, &diags)
	p.MemoriesByName = indexNamed(file.Memories, "memory", func(v *lang.Memory) (string, hcl.Range) { return v.Name, v.NameRange }, &diags)
	p.OutputsByName = indexNamed(file.Outputs, "output", func(v *lang.Output) (string, hcl.Range) { return v.Name, v.NameRange }, &diags)
	localDecls := indexNamed(file.Locals, "local", func(v *lang.Local) (string, hcl.Range) { return v.Name, v.NameRange }, &diags)
	p.LocalsByName = make(map[string]*Local, len(localDecls))
	for _, l := range file.Locals {
		if localDecls[l.Name] == l {
			cl := &Local{Local: l}
			p.Locals = append(p.Locals, cl)
			p.LocalsByName[l.Name] = cl
		}
	}
	stepDecls := indexNamed(file.Steps, "step", func(v *lang.Step) (string, hcl.Range) { return v.Name, v.NameRange }, &diags)
	p.StepsByName = make(map[string]*Step, len(stepDecls))
	for _, s := range file.Steps {
		if stepDecls[s.Name] == s {
			cs := &Step{Step: s, Index: len(p.Steps)}
			p.Steps = append(p.Steps, cs)
			p.StepsByName[s.Name] = cs
		}
	}

	reg, d := blocks.Load(blocks.LoadOptions{
		Parser:       c.opts.Parser,
		FlowFile:     p.Filename,
		Inline:       file.Blocks,
		RegistryDirs: c.opts.RegistryDirs,
	})
	diags = append(diags, d...)
	p.Registry = reg
	c.hashSources()
	c.keepSources()
	c.fingerprints()
	c.hashSteps()
	return diags
}

// indexNamed maps names to declarations, reporting a second declaration of
// a name with a pointer to the first.
func indexNamed[T any](items []T, kind string, name func(T) (string, hcl.Range), diags *hcl.Diagnostics) map[string]T {
	m := make(map[string]T, len(items))
	ranges := make(map[string]hcl.Range, len(items))
	for _, it := range items {
		n, rng := name(it)
		if first, ok := ranges[n]; ok {
			*diags = append(*diags, lang.Error(rng, "Duplicate "+kind,
				"%s %s named %q was already declared at %s; %s names must be unique within a flow.",
				capitalize(lang.Article(kind)), kind, n, lang.RangeString(first), kind)...)
			continue
		}
		m[n], ranges[n] = it, rng
	}
	return m
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// overrideSteps applies a variant's overrides to the steps of file.
func overrideSteps(file *lang.File, overrides []*lang.EvalOverride) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, o := range overrides {
		i := slices.IndexFunc(file.Steps, func(s *lang.Step) bool { return s.Name == o.Step })
		if i < 0 {
			names := make([]string, len(file.Steps))
			for j, s := range file.Steps {
				names[j] = s.Name
			}
			diags = append(diags, lang.Error(o.StepRange, "Override of an unknown step",
				"The flow has no step %q.%s", o.Step, lang.Suggest(o.Step, names))...)
			continue
		}
		s := *file.Steps[i]
		diags = append(diags, lang.ApplyOverride(&s, o)...)
		file.Steps = slices.Clone(file.Steps)
		file.Steps[i] = &s
	}
	return diags
}
