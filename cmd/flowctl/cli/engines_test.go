package cli

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/blocktest"
	"github.com/flowctl/flowctl/blocks/sandbox/gorun"
	"github.com/flowctl/flowctl/blocks/sandbox/isolate"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime/engine"
	"github.com/zclconf/go-cty/cty"
	"golang.org/x/tools/txtar"
)

// TestEnginesAgreeOnExamples runs every example of every go block in the
// repository (flows, block files, and those in test archives, but for the
// hostile corpus) interpreted and compiled, and checks that both engines
// give the same outputs, or both fail.
func TestEnginesAgreeOnExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("builds programs")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("compiled go blocks need the Go toolchain on PATH")
	}
	found := goBlocksWithExamples(t, "../../..")
	if len(found) < 3 {
		t.Fatalf("found %d go blocks with examples in the repository; the search has lost them", len(found))
	}
	pool := isolate.New(isolate.Options{})
	defer pool.Close()
	executors := func(goEngine string) *blocks.Executors {
		return &blocks.Executors{Runtimes: map[string]blocks.Executor{
			lang.RuntimeGo: isolate.Route(pool, engine.InProcess(gorun.NewExecutor()), isolate.RouteOptions{GoEngine: goEngine}),
		}}
	}
	interpreted, compiled := executors(lang.EngineInterpreted), executors(lang.EngineCompiled)
	for _, f := range found {
		b := f.block
		t.Run(f.name, func(t *testing.T) {
			opts := blocktest.Options{Dir: filepath.Dir(b.Def.DeclRange.Filename)}
			ri := blocktest.Run(context.Background(), b, interpreted, opts)
			rc := blocktest.Run(context.Background(), b, compiled, opts)
			if len(ri) != len(rc) || len(ri) == 0 {
				t.Fatalf("%d results interpreted, %d compiled", len(ri), len(rc))
			}
			for i := range ri {
				a, c := ri[i], rc[i]
				switch {
				case a.Actual == cty.NilVal || c.Actual == cty.NilVal:
					// A block that failed has no outputs: both must fail.
					if a.Actual != c.Actual {
						t.Errorf("example %d: interpreted %s (%s), compiled %s (%s)", i+1, a.Status, a.Error, c.Status, c.Error)
					}
				case !a.Actual.RawEquals(c.Actual):
					t.Errorf("example %d: interpreted %#v (%s), compiled %#v (%s)", i+1, a.Actual, a.Error, c.Actual, c.Error)
				case a.Status != c.Status:
					t.Errorf("example %d: interpreted %s, compiled %s", i+1, a.Status, c.Status)
				}
			}
		})
	}
}

// goBlocksWithExamples finds the go blocks with examples under root: in
// *.hcl files, and in the .hcl files of *.txtar archives (written out to
// read them), but for the hostile corpus, each named by where it is.
func goBlocksWithExamples(t *testing.T, root string) []namedBlock {
	parser := lang.NewParser()
	var out []namedBlock
	take := func(path, where string) {
		var defs []*lang.BlockDef
		if strings.HasSuffix(path, ".block.hcl") {
			defs, _ = blocks.ParseBlockFile(parser, path)
		} else {
			defs, _ = lang.DecodeFlowBlockDefs(parser, path)
		}
		for _, def := range defs {
			if def.Runtime != lang.RuntimeGo || len(def.Examples) == 0 || def.Source == "" {
				continue
			}
			if _, diags, _ := gorun.Vet(def); diags.HasErrors() {
				continue // a case about code that does not compile
			}
			if b, diags := blocks.FromDef(def); !diags.HasErrors() {
				out = append(out, namedBlock{where + ":" + b.Name, b})
			}
		}
	}
	tmp := t.TempDir()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != root || path == filepath.Join(root, "cmd/flowctl/cli/testdata/hostile")):
			return filepath.SkipDir
		case strings.HasSuffix(path, ".hcl"):
			take(path, strings.TrimPrefix(path, root+"/"))
		case strings.HasSuffix(path, ".txtar"):
			ar, err := txtar.ParseFile(path)
			if err != nil {
				return err
			}
			dir := filepath.Join(tmp, strings.ReplaceAll(strings.TrimPrefix(path, root), "/", "_"))
			for _, f := range ar.Files {
				p := filepath.Join(dir, f.Name)
				if os.MkdirAll(filepath.Dir(p), 0o755) != nil || os.WriteFile(p, f.Data, 0o644) != nil {
					t.Fatalf("writing %s of %s", f.Name, path)
				}
			}
			for _, f := range ar.Files {
				if strings.HasSuffix(f.Name, ".hcl") {
					take(filepath.Join(dir, f.Name), strings.TrimPrefix(path, root+"/")+"/"+f.Name)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

type namedBlock struct {
	name  string
	block *blocks.Block
}
