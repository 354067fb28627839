package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/project"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/spf13/cobra"
	"github.com/zclconf/go-cty/cty"
)

func newDocsCommand(s streams) *cobra.Command {
	var a arguments.Docs
	cmd := &cobra.Command{
		Use:   "docs [PATH...] [--format markdown|json] [--out FILE] [--check]",
		Short: "Write documentation of flows and blocks from their source",
		Long: `Docs writes the documentation of every flow (*.flow.hcl) and block file
(*.block.hcl) under the paths (default: the current directory), recursively:
per flow its description, inputs, outputs, secrets, the blocks it uses,
schedules, approvals, the steps as a Mermaid diagram and its tests; per block
its inputs, outputs and examples. --out writes it to a file (paths in it are
relative to the file's directory); --check changes nothing and exits 1 when
that file is not what docs would write, for CI.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.Args(args); err != nil {
				return err
			}
			return runDocs(s, a.Paths, a.Format, a.Out, a.Check, a.Registries)
		},
	}
	a.Flags(cmd.Flags())
	return cmd
}

func runDocs(s streams, paths []string, format, out string, check bool, registries []string) error {
	base, _ := os.Getwd()
	if out != "" {
		base = filepath.Dir(absPath(out))
	}
	d, files, diags := collectDocs(paths, registries, base)
	if diags.HasErrors() {
		return failDiags(files, diags)
	}
	var buf bytes.Buffer
	if format == "json" {
		if err := views.WriteJSON(&buf, d); err != nil {
			return err
		}
	} else {
		views.WriteDocsMarkdown(&buf, d)
	}
	switch {
	case check:
		old, err := os.ReadFile(out)
		if err != nil || !bytes.Equal(old, buf.Bytes()) {
			fmt.Fprintf(s.err, "%s is out of date: run flowctl docs %s --out %s\n", out, strings.Join(paths, " "), out)
			return exitError{exitFailure}
		}
		return nil
	case out != "":
		return writeFileAtomic(out, buf.Bytes())
	}
	_, err := s.out.Write(buf.Bytes())
	return err
}

// collectDocs compiles the flows and reads the block and test files
// under the paths. Paths in the result are relative to base.
func collectDocs(paths, registries []string, base string) (*views.Docs, map[string]*hcl.File, hcl.Diagnostics) {
	parser := lang.NewParser()
	rel := func(p string) string {
		if r, err := filepath.Rel(base, absPath(p)); err == nil {
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
			if !slices.ContainsFunc(flows, func(f string) bool { return absPath(f) == flow }) {
				flows = append(flows, flow)
			}
			tests[flow] = ts
		}
		slices.Sort(flows)
	}
	d := &views.Docs{Flows: []views.FlowDoc{}, Blocks: []views.BlockDoc{}}
	for _, f := range flows {
		prog, dg := compiler.Compile(f, compiler.Options{Parser: parser, RegistryDirs: registries})
		diags = append(diags, dg...)
		if dg.HasErrors() {
			continue
		}
		d.Flows = append(d.Flows, flowDoc(prog, rel, tests[absPath(f)]))
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
func docTests(parser *lang.Parser, paths []string, rel func(string) string, diags *hcl.Diagnostics) map[string][]views.TestDoc {
	out := map[string][]views.TestDoc{}
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
			flow, d := testFlow(file, def)
			*diags = append(*diags, d...)
			if !d.HasErrors() {
				out[absPath(flow)] = append(out[absPath(flow)], views.TestDoc{Name: def.Name, File: rel(file)})
			}
		}
	}
	return out
}

func flowDoc(p *compiler.Program, rel func(string) string, tests []views.TestDoc) views.FlowDoc {
	fd := views.FlowDoc{
		Name: p.Flow.Name, File: rel(p.Filename), Description: p.Flow.Description, Steps: len(p.Steps),
		Inputs: []views.FieldDoc{}, Outputs: []views.FieldDoc{}, Secrets: []views.SecretDoc{}, Blocks: []views.UsedBlockDoc{},
		Schedules: []views.ScheduleDoc{}, Approvals: []views.ApprovalDoc{}, Tests: tests,
	}
	if fd.Tests == nil {
		fd.Tests = []views.TestDoc{}
	}
	for _, in := range p.Inputs {
		f := views.FieldDoc{Name: in.Name, Type: lang.TypeString(in.Type.Type), Required: in.Required(), Sensitive: in.Sensitive, Description: in.Description}
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
		fd.Outputs = append(fd.Outputs, views.FieldDoc{Name: o.Name, Type: lang.TypeString(ty), Sensitive: o.Sensitive, Description: o.Description})
	}
	for _, sec := range p.Secrets {
		fd.Secrets = append(fd.Secrets, views.SecretDoc{Name: sec.Name, Env: sec.Env, Description: sec.Description})
	}
	for _, pr := range p.Providers {
		pd := views.ProviderDoc{Name: pr.Name, BaseURL: pr.BaseURL, RPM: pr.RPM, TPM: pr.TPM, Concurrency: pr.Concurrency,
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
	used := map[string]int{}
	for _, st := range p.Steps {
		b := st.Block
		i, ok := used[b.Name]
		if !ok {
			ub := views.UsedBlockDoc{Name: b.Name, Runtime: b.Runtime, Description: b.Description}
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
			a := views.ApprovalDoc{Step: st.Name}
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
		fd.Schedules = append(fd.Schedules, views.ScheduleDoc{Name: sc.Name, Cron: sc.Cron, Timezone: tz})
	}
	var g bytes.Buffer
	views.WriteMermaid(&g, p, newStepGraph(p, false))
	fd.Mermaid = g.String()
	return fd
}

func fileBytes(name string) []byte {
	b, _ := os.ReadFile(name)
	return b
}

func blockDoc(b *blocks.Block, rel func(string) string) views.BlockDoc {
	bd := views.BlockDoc{Name: b.Name, Runtime: b.Runtime, Description: b.Description, UseWhen: b.UseWhen, Tags: b.Tags,
		Inputs: []views.FieldDoc{}, Outputs: []views.FieldDoc{}, Examples: []views.ExampleDoc{}}
	if b.Def != nil {
		bd.File = rel(b.Def.DeclRange.Filename)
		for _, ex := range b.Def.Examples {
			bd.Examples = append(bd.Examples, views.ExampleDoc{Input: hclText(ex.Input), Output: hclText(ex.Output)})
		}
	}
	for _, in := range b.Inputs {
		f := views.FieldDoc{Name: in.Name, Type: lang.TypeString(in.Type.Type), Required: in.Required(), Description: in.Description}
		if !in.Required() {
			v := hclText(in.Default)
			f.Default = &v
		}
		bd.Inputs = append(bd.Inputs, f)
	}
	for _, o := range b.Outputs {
		bd.Outputs = append(bd.Outputs, views.FieldDoc{Name: o.Name, Type: lang.TypeString(o.Type.Type), Description: o.Description})
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
