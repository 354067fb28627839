package compiler_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"golang.org/x/tools/txtar"
)

// FuzzCompile parses and compiles arbitrary flow sources: no input may
// panic or hang the compiler, and every error must carry a summary.
//
//	go test ./compiler -run '^$' -fuzz FuzzCompile -fuzztime 5m
func FuzzCompile(f *testing.F) {
	cases, _ := filepath.Glob("testdata/cases/*.txtar")
	for _, c := range cases {
		ar, err := txtar.ParseFile(c)
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range ar.Files {
			if strings.HasSuffix(file.Name, ".flow.hcl") {
				f.Add(file.Data)
			}
		}
	}
	examples, _ := filepath.Glob("../examples/*/*.flow.hcl")
	for _, e := range examples {
		if p, err := lang.NewParser().ParseFile(e); err == nil {
			f.Add(p.Bytes)
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		name := filepath.Join(t.TempDir(), "fuzz.flow.hcl")
		prog, diags := compiler.Compile(name, compiler.Options{Source: src})
		if prog == nil {
			t.Fatal("Compile returned no program")
		}
		for _, d := range diags {
			if d.Summary == "" {
				t.Fatalf("diagnostic without a summary: %#v", d)
			}
		}
		if !diags.HasErrors() {
			if len(prog.Steps) > 0 && len(prog.CriticalPath) == 0 {
				t.Fatal("a valid flow with steps has no critical path")
			}
			n := 0
			for _, st := range prog.Stages {
				n += len(st)
			}
			if n != len(prog.Steps) {
				t.Fatalf("stages hold %d steps; the flow has %d", n, len(prog.Steps))
			}
		}
	})
}
