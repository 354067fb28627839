package compiler_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
)

// TestCompileTestTree: mocks and overrides reach the steps of the flows
// a flow uses, at any depth and through a model's flow tools; a mock of a
// block only a sub-flow uses is not unused; a step path replaces the step
// at it, or the steps under it; the narrower mock wins, an override over
// any mock; and paths that name nothing are errors.
func TestCompileTestTree(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"main.flow.hcl": `flow "main" {}

step "summarize" {
  use = "flow.chunk"
}

step "again" {
  use = "flow.chunk"
}

step "agent" {
  use    = "llm"
  prompt = "go"
  tools  = [flow.lookup]
}
`,
		"chunk.flow.hcl": `flow "chunk" {}

step "fetch" {
  use = "flow.lookup"
}

step "ask" {
  use    = "llm"
  prompt = "say"
}
`,
		"lookup.flow.hcl": `flow "lookup" {}

step "get" {
  use = "http"
  url = "http://127.0.0.1:1/"
}
`,
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	prog, diags := compiler.Compile(filepath.Join(dir, "main.flow.hcl"), compiler.Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	compileTest := func(src string) (*compiler.Test, string) {
		t.Helper()
		f, diags := lang.NewParser().ParseSource([]byte(src), filepath.Join(dir, "main.test.hcl"))
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		defs, diags := lang.DecodeTestFile(f)
		if diags.HasErrors() {
			return nil, diags.Error()
		}
		test, diags := compiler.CompileTest(prog, defs[0])
		if !diags.HasErrors() {
			return test, ""
		}
		return test, diags.Error()
	}

	var paths []string
	for _, ts := range compiler.StepTree(prog) {
		paths = append(paths, ts.Path)
	}
	if got := strings.Join(paths, " "); got != "summarize summarize.fetch summarize.fetch.get summarize.ask again again.fetch again.fetch.get again.ask agent agent.lookup.get" {
		t.Fatalf("tree: %s", got)
	}
	for _, ts := range compiler.StepTree(prog) {
		if ts.Path == "summarize.fetch.get" {
			if w := ts.Where(); w != `step.summarize → flow "chunk" → step.fetch → flow "lookup" → step.get` {
				t.Errorf("Where: %s", w)
			}
		}
		if ts.Path == "agent.lookup.get" {
			if w := ts.Where(); w != `step.agent → tool flow "lookup" → step.get` {
				t.Errorf("Where: %s", w)
			}
		}
	}

	src := `test "t" {
  mock "http" {
    outputs = { text = "everywhere" }
  }
  mock "llm" {
    step    = "summarize"
    outputs = { text = "under summarize" }
  }
  mock "http" {
    step    = "again.fetch.get"
    outputs = { text = "one" }
  }
  override "step.summarize.ask" {
    outputs = { text = "overridden" }
  }
}
`
	test, errs := compileTest(src)
	if errs != "" {
		t.Fatal(errs)
	}
	got := map[string]string{}
	for path, r := range test.Replaced {
		got[path] = string(r.Outputs.Range().SliceBytes([]byte(src)))
	}
	want := map[string]string{
		"summarize.fetch.get": `{ text = "everywhere" }`,
		"again.fetch.get":     `{ text = "one" }`,
		"agent.lookup.get":    `{ text = "everywhere" }`,
		"summarize.ask":       `{ text = "overridden" }`,
	}
	if len(got) != len(want) {
		t.Errorf("replaced: %v", got)
	}
	for path, w := range want {
		if got[path] != w {
			t.Errorf("%s: %q, want %q", path, got[path], w)
		}
	}

	for _, c := range []struct{ src, want string }{
		{`mock "llm" {
    step    = "summarize.fetch"
    outputs = { text = "x" }
  }`, `No step at or under step.summarize → flow "chunk" → step.fetch uses the block "llm"`},
		{`mock "http" {
    step    = "summarize.ask"
    outputs = { text = "x" }
  }`, `step.summarize → flow "chunk" → step.ask uses the block "llm", not "http"`},
		{`mock "llm" {
    step    = "summarize.asc"
    outputs = { text = "x" }
  }`, `has the path "summarize.asc" (a step's name, then the names of the steps of the flow it uses, joined by dots). Did you mean "summarize.ask"?`},
		{`override "step.again.fetch.gett" {
    outputs = { text = "x" }
  }`, `Did you mean "again.fetch.get"?`},
		{`mock "scrape" {
    outputs = { text = "x" }
  }`, `No step of flow "main", or of the flows it runs, uses the block "scrape"`},
		{`mock "llm" {
    step    = "summarize..ask"
    outputs = { text = "x" }
  }`, `Invalid step path`},
		{`override "step.summarize.ask" {
    outputs = { txt = "x" }
  }`, `Block "llm" has no output "txt"`},
	} {
		if _, errs := compileTest("test \"t\" {\n  " + c.src + "\n}\n"); !strings.Contains(errs, c.want) {
			t.Errorf("%s:\n%s\nwant %s", c.src, errs, c.want)
		}
	}
}
