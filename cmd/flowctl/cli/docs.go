package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/spf13/cobra"
	"github.com/zclconf/go-cty/cty"
)

func newDocsCommand(s streams) *cobra.Command {
	var format, out string
	var check bool
	var registries registryFlags
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
			if format != "markdown" && format != "json" {
				return usagef("unknown --format %q: use markdown or json", format)
			}
			if check && out == "" {
				return usagef("--check needs --out: the file to compare")
			}
			if len(args) == 0 {
				args = []string{"."}
			}
			return runDocs(s, args, format, out, check, registries)
		},
	}
	cmd.Flags().StringVar(&format, "format", "markdown", "markdown or json")
	cmd.Flags().StringVar(&out, "out", "", "write to this file instead of standard output")
	cmd.Flags().BoolVar(&check, "check", false, "change nothing; exit 1 when the --out file is out of date")
	registries.register(cmd)
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
		if err := writeJSON(&buf, d); err != nil {
			return err
		}
	} else {
		writeDocsMarkdown(&buf, d)
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

// The documentation of flows and blocks (docs --format json prints it).
type docsJSON struct {
	Flows  []flowDocJSON  `json:"flows"`
	Blocks []blockDocJSON `json:"blocks"`
}

// flowDocJSON is a flow's documentation. Its paths (File, a block's
// DefinedIn, a test's File) are relative to the directory of --out, else
// to the working directory.
type flowDocJSON struct {
	Name        string `json:"name"`
	File        string `json:"file"`
	Description string `json:"description,omitempty"`
	// Inputs and Outputs have the types the compiler infers; Secrets
	// their environment variables.
	Inputs  []fieldDocJSON  `json:"inputs"`
	Outputs []fieldDocJSON  `json:"outputs"`
	Secrets []secretDocJSON `json:"secrets"`
	// Providers are the model servers it declares, with the llm steps
	// that name each.
	Providers []providerDocJSON `json:"providers,omitempty"`
	// Blocks are the blocks its steps use, in the order of their first
	// step, each with the steps that use it.
	Blocks    []usedBlockJSON `json:"blocks"`
	Schedules []scheduleJSON  `json:"schedules"`
	Approvals []approvalJSON  `json:"approvals"` // its approval steps
	Steps     int             `json:"steps"`     // how many
	Mermaid   string          `json:"mermaid"`   // the step graph, as graph --format mermaid draws it
	Tests     []testDocJSON   `json:"tests"`     // the tests that run it
}

type fieldDocJSON struct {
	Name        string  `json:"name"`
	Type        string  `json:"type"`
	Default     *string `json:"default,omitempty"` // HCL; nil when required (or an output)
	Required    bool    `json:"required,omitempty"`
	Sensitive   bool    `json:"sensitive,omitempty"`
	Description string  `json:"description,omitempty"`
}

type providerDocJSON struct {
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

type secretDocJSON struct {
	Name        string `json:"name"`
	Env         string `json:"env"`
	Description string `json:"description,omitempty"`
}

type usedBlockJSON struct {
	Name        string   `json:"name"`
	Runtime     string   `json:"runtime"`
	Description string   `json:"description,omitempty"`
	DefinedIn   string   `json:"defined_in,omitempty"` // "" for built-ins
	Steps       []string `json:"steps"`
}

type scheduleJSON struct {
	Name     string `json:"name"`
	Cron     string `json:"cron"`
	Timezone string `json:"timezone"`
}

type approvalJSON struct {
	Step    string `json:"step"`
	Message string `json:"message,omitempty"`
}

type testDocJSON struct {
	Name string `json:"name"`
	File string `json:"file"`
}

// blockDocJSON is the documentation of a block of a block file, or of
// one a flow file defines (File is then the flow's).
type blockDocJSON struct {
	Name        string `json:"name"`
	File        string `json:"file"`
	Runtime     string `json:"runtime"`
	Description string `json:"description,omitempty"`
	// UseWhen and Tags are what blocks search and the thinker match,
	// beside the description.
	UseWhen string         `json:"use_when,omitempty"`
	Tags    []string       `json:"tags,omitempty"`
	Inputs  []fieldDocJSON `json:"inputs"`
	Outputs []fieldDocJSON `json:"outputs"`
	// Examples are the block's example blocks, their input and output
	// as HCL writes them.
	Examples []exampleJSON `json:"examples"`
}

type exampleJSON struct {
	Input  string `json:"input"`
	Output string `json:"output"`
}

// collectDocs compiles the flows and reads the block and test files
// under the paths. Paths in the result are relative to base.
func collectDocs(paths, registries []string, base string) (*docsJSON, map[string]*hcl.File, hcl.Diagnostics) {
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
		flows, blockFiles, dg = findFlowsAndBlockFiles(others, false)
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
	d := &docsJSON{Flows: []flowDocJSON{}, Blocks: []blockDocJSON{}}
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
func docTests(parser *lang.Parser, paths []string, rel func(string) string, diags *hcl.Diagnostics) map[string][]testDocJSON {
	out := map[string][]testDocJSON{}
	files, _ := findFiles(paths, lang.IsTestFile)
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
				out[absPath(flow)] = append(out[absPath(flow)], testDocJSON{Name: def.Name, File: rel(file)})
			}
		}
	}
	return out
}

func flowDoc(p *compiler.Program, rel func(string) string, tests []testDocJSON) flowDocJSON {
	fd := flowDocJSON{
		Name: p.Flow.Name, File: rel(p.Filename), Description: p.Flow.Description, Steps: len(p.Steps),
		Inputs: []fieldDocJSON{}, Outputs: []fieldDocJSON{}, Secrets: []secretDocJSON{}, Blocks: []usedBlockJSON{},
		Schedules: []scheduleJSON{}, Approvals: []approvalJSON{}, Tests: tests,
	}
	if fd.Tests == nil {
		fd.Tests = []testDocJSON{}
	}
	for _, in := range p.Inputs {
		f := fieldDocJSON{Name: in.Name, Type: lang.TypeString(in.Type.Type), Required: in.Required(), Sensitive: in.Sensitive, Description: in.Description}
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
		fd.Outputs = append(fd.Outputs, fieldDocJSON{Name: o.Name, Type: lang.TypeString(ty), Sensitive: o.Sensitive, Description: o.Description})
	}
	for _, sec := range p.Secrets {
		fd.Secrets = append(fd.Secrets, secretDocJSON{Name: sec.Name, Env: sec.Env, Description: sec.Description})
	}
	for _, pr := range p.Providers {
		pd := providerDocJSON{Name: pr.Name, BaseURL: pr.BaseURL, RPM: pr.RPM, TPM: pr.TPM, Concurrency: pr.Concurrency,
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
			ub := usedBlockJSON{Name: b.Name, Runtime: b.Runtime, Description: b.Description}
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
			a := approvalJSON{Step: st.Name}
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
		fd.Schedules = append(fd.Schedules, scheduleJSON{Name: sc.Name, Cron: sc.Cron, Timezone: tz})
	}
	var g bytes.Buffer
	writeMermaid(&g, p, newStepGraph(p, false))
	fd.Mermaid = g.String()
	return fd
}

func fileBytes(name string) []byte {
	b, _ := os.ReadFile(name)
	return b
}

func blockDoc(b *blocks.Block, rel func(string) string) blockDocJSON {
	bd := blockDocJSON{Name: b.Name, Runtime: b.Runtime, Description: b.Description, UseWhen: b.UseWhen, Tags: b.Tags,
		Inputs: []fieldDocJSON{}, Outputs: []fieldDocJSON{}, Examples: []exampleJSON{}}
	if b.Def != nil {
		bd.File = rel(b.Def.DeclRange.Filename)
		for _, ex := range b.Def.Examples {
			bd.Examples = append(bd.Examples, exampleJSON{Input: hclText(ex.Input), Output: hclText(ex.Output)})
		}
	}
	for _, in := range b.Inputs {
		f := fieldDocJSON{Name: in.Name, Type: lang.TypeString(in.Type.Type), Required: in.Required(), Description: in.Description}
		if !in.Required() {
			v := hclText(in.Default)
			f.Default = &v
		}
		bd.Inputs = append(bd.Inputs, f)
	}
	for _, o := range b.Outputs {
		bd.Outputs = append(bd.Outputs, fieldDocJSON{Name: o.Name, Type: lang.TypeString(o.Type.Type), Description: o.Description})
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
