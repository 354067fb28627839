package project

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/flowctl/flowctl/blocks/sandbox/deps"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
)

// lockJSGo is Lock for the js blocks' packages and the compiled go
// blocks' modules under dir: sets old pins are kept, new ones resolved
// (deps.LockJS against the npm registry, deps.LockGo through the Go
// module proxy) unless check, and sets no block declares dropped. What it
// pins is added to lock; res says what it did.
func lockJSGo(ctx context.Context, dir string, old, lock *deps.Lock, res *Locking, check bool) hcl.Diagnostics {
	js, gos, diags := dependencySets(dir)
	if diags.HasErrors() {
		return diags
	}
	diags = nil // the python blocks' reading reported its warnings
	for _, pkgs := range js {
		key := lang.PackagesKey(pkgs)
		if e := old.JSFor(pkgs); e != nil {
			err := e.Complete()
			if err == nil && !e.OnRegistry() {
				err = fmt.Errorf("its tarballs are on another registry than this machine's")
			}
			if err == nil {
				res.Kept = append(res.Kept, key)
				lock.JS = append(lock.JS, e)
				continue
			}
			res.Problems = append(res.Problems, "js "+key+": "+err.Error())
		}
		res.Added, res.Stale = append(res.Added, key), true
		if check {
			continue
		}
		e, err := deps.LockJS(ctx, pkgs)
		if err != nil {
			return append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot lock js packages",
				Detail: fmt.Sprintf("Locking %s: %s.", key, lang.Sentence(err.Error()))})
		}
		lock.JS = append(lock.JS, e)
	}
	for _, req := range gos {
		key := lang.PackagesKey(req)
		if e := old.GoFor(req); e != nil {
			err := e.Complete()
			if err == nil {
				res.Kept = append(res.Kept, key)
				lock.Go = append(lock.Go, e)
				continue
			}
			res.Problems = append(res.Problems, "go "+key+": "+err.Error())
		}
		res.Added, res.Stale = append(res.Added, key), true
		if check {
			continue
		}
		e, err := deps.LockGo(ctx, req)
		if err != nil {
			return append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot lock go modules",
				Detail: fmt.Sprintf("Locking %s: %s.", key, lang.Sentence(err.Error()))})
		}
		lock.Go = append(lock.Go, e)
	}
	for _, e := range old.JS {
		if lock.JSFor(e.Packages) == nil {
			res.Removed, res.Stale = append(res.Removed, e.Key), true
		}
	}
	for _, e := range old.Go {
		if lock.GoFor(e.Require) == nil {
			res.Removed, res.Stale = append(res.Removed, e.Key), true
		}
	}
	return diags
}

// dependencySets are the distinct packages of the js blocks and require
// of the compiled go blocks of the flow and block files under dir, in a
// stable order.
func dependencySets(dir string) (js, gos []map[string]string, diags hcl.Diagnostics) {
	files, diags := Find([]string{dir}, func(p string) bool { return lang.IsFlowFile(p) || lang.IsBlockFile(p) })
	parser := lang.NewParser()
	seen := map[string]bool{}
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
			switch {
			case def == nil:
			case def.Runtime == lang.RuntimeJS && len(def.Packages) > 0:
				if k := "js " + lang.PackagesKey(def.Packages); !seen[k] {
					seen[k] = true
					js = append(js, def.Packages)
				}
			case def.Runtime == lang.RuntimeGo && len(def.Require) > 0:
				if k := "go " + lang.PackagesKey(def.Require); !seen[k] {
					seen[k] = true
					gos = append(gos, def.Require)
				}
			}
		}
	}
	byKey := func(a, b map[string]string) int { return strings.Compare(lang.PackagesKey(a), lang.PackagesKey(b)) }
	slices.SortFunc(js, byKey)
	slices.SortFunc(gos, byKey)
	return js, gos, diags
}
