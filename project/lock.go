package project

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/flowctl/flowctl/blocks/sandbox/deps"
	"github.com/flowctl/flowctl/blocks/sandbox/pyrun"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
)

// Locking is what Lock did or would do to a directory's lock file.
type Locking struct {
	Path    string   // the lock file
	Added   []string // requirement sets resolved now
	Kept    []string // sets the lock pinned already
	Removed []string // sets no block declares any more
	// Stale: the lock file is missing, lacks a set, has one no block
	// declares, or was locked for another interpreter or platform.
	Stale   bool
	Written bool
	// Problems say, one line each, why an entry of the lock file does not
	// serve a block here: locked for another interpreter or platform, or
	// lacking a package its block declares.
	Problems []string
}

// Lock pins the requirements of every python block under dir (flow files'
// blocks and *.block.hcl files) in dir's flowctl.lock.hcl: sets the lock
// has are kept as they are, new ones are resolved by pip (deps), and sets
// no block declares are dropped. With check, nothing is resolved or
// written: Stale says whether the lock is complete for the blocks, each
// python entry for this machine's interpreter and platform, each js and go
// entry for its packages (Problems say why an entry is not). The js blocks' packages and the compiled go
// blocks' modules are locked beside them (lockJSGo).
func Lock(ctx context.Context, dir string, check bool) (*Locking, hcl.Diagnostics) {
	res := &Locking{Path: filepath.Join(dir, deps.FileName)}
	sets, diags := requirementSets(dir)
	if diags.HasErrors() {
		return res, diags
	}
	old := &deps.Lock{}
	if _, err := os.Stat(res.Path); err == nil {
		var d hcl.Diagnostics
		if old, d = deps.Read(res.Path); d.HasErrors() {
			return res, append(diags, d...)
		}
	} else {
		res.Stale = len(sets) > 0
	}
	var interp *deps.Interpreter
	if len(sets) > 0 {
		py, err := pyrun.Find()
		if err == nil {
			interp, err = deps.Describe(ctx, py.Path)
		}
		if err != nil {
			return res, append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot lock python requirements", Detail: lang.Sentence(err.Error()) + "."})
		}
	}
	lock := &deps.Lock{}
	for _, reqs := range sets {
		key := lang.RequirementsKey(reqs)
		e := old.PythonFor(reqs)
		if e != nil {
			err := e.Fits(interp)
			if err == nil {
				res.Kept = append(res.Kept, key)
				lock.Python = append(lock.Python, e)
				continue
			}
			res.Problems = append(res.Problems, "python "+key+": "+err.Error())
		}
		res.Added, res.Stale = append(res.Added, key), true
		if check {
			continue
		}
		var err error
		e, err = interp.LockPython(ctx, reqs)
		if err != nil {
			return res, append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot lock python requirements",
				Detail: fmt.Sprintf("Locking %s: %s.", key, lang.Sentence(err.Error()))})
		}
		lock.Python = append(lock.Python, e)
	}
	for _, e := range old.Python {
		if lock.PythonFor(e.Requirements) == nil {
			res.Removed, res.Stale = append(res.Removed, e.Key), true
		}
	}
	if d := lockJSGo(ctx, dir, old, lock, res, check); d.HasErrors() {
		return res, append(diags, d...)
	}
	if check || len(sets) == 0 && len(old.Python) == 0 && len(old.JS)+len(old.Go)+len(lock.JS)+len(lock.Go) == 0 {
		return res, diags
	}
	text := lock.Bytes()
	if cur, err := os.ReadFile(res.Path); err == nil && bytes.Equal(cur, text) {
		return res, diags
	}
	if err := lang.WriteFileAtomic(res.Path, text); err != nil {
		return res, append(diags, lang.PathError(res.Path, err))
	}
	res.Written = true
	return res, diags
}

// requirementSets are the distinct requirement sets of the python blocks
// of the flow and block files under dir, in a stable order.
func requirementSets(dir string) ([][]string, hcl.Diagnostics) {
	files, diags := Find([]string{dir}, func(p string) bool { return lang.IsFlowFile(p) || lang.IsBlockFile(p) })
	parser := lang.NewParser()
	seen := map[string]bool{}
	var sets [][]string
	for _, name := range files {
		f, d := parser.ParseFile(name)
		if d.HasErrors() {
			diags = append(diags, d...)
			continue
		}
		var defs []*lang.BlockDef
		if lang.IsBlockFile(name) {
			defs, d = lang.DecodeBlockFile(f)
		} else {
			var file *lang.File
			file, d = lang.DecodeFlowFile(f, name)
			defs = file.Blocks
		}
		diags = append(diags, d...)
		for _, def := range defs {
			if def == nil || def.Runtime != lang.RuntimePython || len(def.Requirements) == 0 {
				continue
			}
			if key := lang.RequirementsKey(def.Requirements); !seen[key] {
				seen[key] = true
				sets = append(sets, def.Requirements)
			}
		}
	}
	slices.SortFunc(sets, func(a, b []string) int {
		return strings.Compare(lang.RequirementsKey(a), lang.RequirementsKey(b))
	})
	return sets, diags
}
