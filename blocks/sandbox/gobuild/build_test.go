package gobuild

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/sandbox/gobuild/runner"
	"github.com/flowctl/flowctl/lang"
)

func def(t *testing.T, body string) *lang.BlockDef {
	t.Helper()
	bs, diags := blocks.ParseBlocks([]byte(`block "c" {
  runtime = "go"
  engine  = "compiled"
  output "out" { type = any }
  source = <<-GO
package block

import "context"

func Execute(ctx context.Context, input map[string]any) (map[string]any, error) {
`+body+`
}
  GO
}
`), "flow.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return bs[0].Def
}

// newBuilder is a builder of its own that shares the default builder's
// Go build cache, which is warm after the first test.
func newBuilder(t *testing.T, dir string) *Builder {
	b := New(dir)
	if d := Default().Dir(); d != "" {
		b.goCache = filepath.Join(d, "gocache")
	}
	return b
}

func needGo(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs the Go toolchain on PATH")
	}
}

func TestProgramArgIsTheRunners(t *testing.T) {
	if ProgramArg != runner.WorkerArg {
		t.Fatalf("ProgramArg %q, runner.WorkerArg %q", ProgramArg, runner.WorkerArg)
	}
}

// TestBuildOnceThenCached: concurrent requests for one block build it
// once; another builder on the same directory (another process) finds
// it built.
func TestBuildOnceThenCached(t *testing.T) {
	needGo(t)
	dir := t.TempDir()
	b := newBuilder(t, dir)
	d := def(t, `return map[string]any{"out": 1}, nil`)
	var wg sync.WaitGroup
	paths := make([]string, 4)
	for i := range paths {
		wg.Go(func() {
			p, err := b.Program(context.Background(), d)
			if err != nil {
				t.Error(err)
				return
			}
			paths[i] = p.Path
		})
	}
	wg.Wait()
	if b.Builds() != 1 {
		t.Errorf("%d builds, want 1", b.Builds())
	}
	for _, p := range paths[1:] {
		if p != paths[0] || !strings.HasPrefix(p, dir) {
			t.Errorf("paths %q", paths)
		}
	}
	// Two builders on one directory, as two processes would be, build a
	// new block once between them: the file lock.
	d2 := def(t, `return map[string]any{"out": 2}, nil`)
	b1, b2 := newBuilder(t, dir), newBuilder(t, dir)
	for _, bb := range []*Builder{b1, b2} {
		wg.Go(func() {
			if _, err := bb.Program(context.Background(), d2); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := b1.Builds() + b2.Builds(); n != 1 {
		t.Errorf("two builders built %d times, want 1", n)
	}
	other := newBuilder(t, dir)
	if p, err := other.Program(context.Background(), d); err != nil || p.Path != paths[0] || other.Builds() != 0 {
		t.Errorf("second builder: %v, %v, %d builds", p, err, other.Builds())
	}
	if p, _ := other.Program(context.Background(), d); p.ExecLine != 5 {
		t.Errorf("ExecLine %d, want 5", p.ExecLine)
	}
}

// TestCompileErrorsAtTheirLines: the compiler's errors are diagnostics at
// the block's lines in the flow file; what the interpreter could not run
// (min, range over an int) builds.
func TestCompileErrorsAtTheirLines(t *testing.T) {
	needGo(t)
	b := newBuilder(t, t.TempDir())
	bad := def(t, "x := undefinedName\n\treturn map[string]any{\"out\": x}, nil")
	diags := b.Check(bad)
	// The code starts on line 6 of flow.hcl; the body's first line is the
	// code's line 6.
	if len(diags) != 1 || diags[0].Subject.Start.Line != 11 || !strings.Contains(diags[0].Detail, "undefined: undefinedName") {
		t.Fatalf("diags %v", diags)
	}
	_, err := b.Program(context.Background(), bad)
	if err == nil || !strings.Contains(err.Error(), `block "c" cannot run: flow.hcl:11: The code does not compile: undefined: undefinedName.`) {
		t.Fatalf("error %v", err)
	}
	good := def(t, "n := 0\n\tfor i := range 10 {\n\t\tn = max(n, i)\n\t}\n\treturn map[string]any{\"out\": n}, nil")
	if diags := b.Check(good); diags.HasErrors() {
		t.Fatal(diags)
	}
	// The static checks come first, and stop the build.
	sleepy := def(t, "_ = time.Sleep\n\treturn nil, nil")
	sleepy.Source = strings.Replace(sleepy.Source, `import "context"`, "import (\n\t\"context\"\n\t\"time\"\n)", 1)
	if diags := b.Check(sleepy); len(diags) != 1 || !strings.Contains(diags[0].Detail, "time.Sleep is not available in go blocks") {
		t.Fatalf("diags %v", diags)
	}
	directive := def(t, "return nil, nil")
	directive.Source = strings.Replace(directive.Source, "func Execute", "//go:noinline\nfunc Execute", 1)
	if diags := b.Check(directive); len(diags) != 1 || !strings.Contains(diags[0].Detail, "//go:noinline") {
		t.Fatalf("diags %v", diags)
	}
}

// TestNoToolchain: without go on PATH a compiled block is an error that
// names it, at its engine argument; validate warns.
func TestNoToolchain(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	b := newBuilder(t, t.TempDir())
	d := def(t, `return map[string]any{"out": 1}, nil`)
	_, err := b.Program(context.Background(), d)
	if !errors.Is(err, ErrNoToolchain) || !strings.Contains(err.Error(), `block "c" is compiled (engine = "compiled"), which needs the Go toolchain on PATH`) {
		t.Fatalf("error %v", err)
	}
	diags := b.Check(d)
	if len(diags) != 1 || diags.HasErrors() || diags[0].Subject.Start.Line != 3 {
		t.Fatalf("diags %v", diags)
	}
}

// TestEngineArgument: validate takes interpreted and compiled, and rejects
// another value, the argument on a js or llm block, and a compiled block
// that asks to run in process, each at its range.
func TestEngineArgument(t *testing.T) {
	for _, c := range []struct{ runtime, extra, want string }{
		{"go", `engine = "compiled"`, ""},
		{"go", `engine = "interpreted"`, ""},
		{"go", `engine = "compield"`, `The engine "compield" is not known; a go block runs "interpreted" (by yaegi, the default) or "compiled" (built by the Go toolchain). Did you mean "compiled"?`},
		{"js", `engine = "compiled"`, `The engine argument is only for blocks with runtime "go"`},
		{"go", "engine = \"compiled\"\n  sandbox = \"inprocess\"", `a compiled go block always runs in a sandbox worker process of its own`},
	} {
		src := `block "b" {
  runtime = "` + c.runtime + `"
  ` + c.extra + `
  source = "x"
}
`
		_, diags := blocks.ParseBlocks([]byte(src), "b.block.hcl")
		switch {
		case c.want == "" && diags.HasErrors():
			t.Errorf("%s: %v", c.extra, diags)
		case c.want != "" && (len(diags) != 1 || !strings.Contains(diags[0].Detail, c.want) || diags[0].Subject.Start.Line < 3):
			t.Errorf("%s: %v, want %q", c.extra, diags, c.want)
		}
	}
}
