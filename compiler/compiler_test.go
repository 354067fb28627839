package compiler_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the expected sections of testdata/cases/*.txtar")

// TestCases compiles each testdata/cases/*.txtar archive. The archive's
// files are written to a temporary directory and its *.flow.hcl file is
// compiled. The "errors" section lists the expected diagnostics, one per
// line as FILE:LINE,COL-LINE,COL: SUMMARY: DETAIL; a case without errors has
// a "program" section with the stages and critical path instead.
func TestCases(t *testing.T) {
	paths, err := filepath.Glob("testdata/cases/*.txtar")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".txtar")
		t.Run(name, func(t *testing.T) {
			ar, err := txtar.ParseFile(path)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			flow := ""
			want := map[string]string{}
			for _, f := range ar.Files {
				switch f.Name {
				case "errors", "program":
					want[f.Name] = string(f.Data)
					continue
				}
				p := filepath.Join(dir, f.Name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, f.Data, 0o644); err != nil {
					t.Fatal(err)
				}
				if strings.HasSuffix(f.Name, ".flow.hcl") && flow == "" {
					flow = f.Name
				}
			}
			if flow == "" {
				t.Fatal("the case has no *.flow.hcl file")
			}
			var opts compiler.Options
			if _, err := os.Stat(filepath.Join(dir, "registry")); err == nil {
				opts.RegistryDirs = []string{filepath.Join(dir, "registry")}
			}
			prog, diags := compiler.Compile(filepath.Join(dir, flow), opts)
			got := map[string]string{}
			if len(diags) > 0 {
				got["errors"] = formatDiags(diags, dir)
			}
			if !diags.HasErrors() {
				got["program"] = formatProgram(prog)
			}
			if *update {
				var files []txtar.File
				for _, f := range ar.Files {
					if f.Name != "errors" && f.Name != "program" {
						files = append(files, f)
					}
				}
				for _, sec := range []string{"errors", "program"} {
					if got[sec] != "" {
						files = append(files, txtar.File{Name: sec, Data: []byte(got[sec])})
					}
				}
				ar.Files = files
				if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			for _, sec := range []string{"errors", "program"} {
				if got[sec] != want[sec] {
					t.Errorf("%s:\n--- got\n%s--- want\n%s", sec, got[sec], want[sec])
				}
			}

			// Releasing the trees while compiling changes nothing, and
			// leaves no compiled flow file's tree in the parser (a flow
			// file only read for its flow's name is released with
			// Parser.Release, after compiling).
			opts.Parser, opts.Release = lang.NewParser(), true
			rprog, rdiags := compiler.Compile(filepath.Join(dir, flow), opts)
			if d := formatDiags(rdiags, dir); d != formatDiags(diags, dir) {
				t.Errorf("with Release, errors:\n%s", d)
			}
			if !diags.HasErrors() && (formatProgram(rprog) != got["program"] || rprog.SourceHash != prog.SourceHash) {
				t.Errorf("with Release, program:\n%s", formatProgram(rprog))
			}
			if _, ok := opts.Parser.Files()[filepath.Join(dir, flow)].Body.(*hclsyntax.Body); ok {
				t.Errorf("with Release, the tree of %s is kept", flow)
			}
		})
	}
}

func formatDiags(diags hcl.Diagnostics, dir string) string {
	var b strings.Builder
	for _, d := range diags {
		sev := "error"
		if d.Severity == hcl.DiagWarning {
			sev = "warning"
		}
		loc := "-"
		if d.Subject != nil {
			r := *d.Subject
			rel, err := filepath.Rel(dir, r.Filename)
			if err != nil {
				rel = r.Filename
			}
			loc = fmt.Sprintf("%s:%d,%d-%d,%d", filepath.ToSlash(rel), r.Start.Line, r.Start.Column, r.End.Line, r.End.Column)
		}
		fmt.Fprintf(&b, "%s %s: %s: %s\n", sev, loc, d.Summary, strings.ReplaceAll(d.Detail, dir+string(filepath.Separator), ""))
	}
	return b.String()
}

func formatProgram(p *compiler.Program) string {
	var b strings.Builder
	fmt.Fprintf(&b, "flow: %s\n", p.Flow.Name)
	for i, st := range p.Stages {
		fmt.Fprintf(&b, "stage %d: %s\n", i, strings.Join(compiler.Names(st), " "))
	}
	fmt.Fprintf(&b, "critical path: %s\n", strings.Join(compiler.Names(p.CriticalPath), " "))
	for _, s := range p.Steps {
		fmt.Fprintf(&b, "step %s: use=%s deps=[%s] outputs=%s sensitive=%v cache=%v\n",
			s.Name, s.Block.Name, strings.Join(compiler.Names(s.Deps), " "), typeString(s), s.Sensitive, s.CacheEnabled())
		for _, t := range s.Tools {
			fmt.Fprintf(&b, "  tool %s: %s of %d calls; arguments %s\n", t.Ref(), t.Description(), s.ToolCallLimit(), toJSON(t.InputSchema()))
		}
	}
	return b.String()
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
