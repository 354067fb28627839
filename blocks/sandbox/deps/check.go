package deps

import (
	"fmt"
	"maps"
	"path"
	"slices"

	npmsemver "github.com/Masterminds/semver/v3"
	"github.com/flowctl/flowctl/lang"
	"golang.org/x/mod/semver"
)

// Fits says why a python entry cannot be installed by an interpreter: its
// wheels were chosen for another interpreter tag or platform (install
// refuses it, as Install does), or its key is not its requirements' (the
// file was edited by hand); nil when it can.
func (e *PythonEntry) Fits(i *Interpreter) error {
	if k := lang.RequirementsKey(e.Requirements); k != e.Key {
		return fmt.Errorf("its requirements are %s, not its label's %s", k, e.Key)
	}
	if e.Python != i.Tag || e.Platform != i.Platform {
		return fmt.Errorf("locked for %s on %s, and this machine's python is %s on %s", e.Python, e.Platform, i.Tag, i.Platform)
	}
	if len(e.Packages) == 0 {
		return fmt.Errorf("it pins no package")
	}
	return nil
}

// Complete says what a js entry lacks for its packages, which no
// platform changes (npm tarballs are bundled for goja): every declared
// package at the top of its tree (node_modules/NAME) in a version its
// range allows, and every package's own place under node_modules; nil
// when nothing.
func (e *JSEntry) Complete() error {
	if k := lang.PackagesKey(e.Packages); k != e.Key {
		return fmt.Errorf("its packages are %s, not its label's %s", k, e.Key)
	}
	top := map[string]*JSPackage{}
	for _, p := range e.Tree {
		top[p.Path] = p
	}
	for _, name := range slices.Sorted(maps.Keys(e.Packages)) {
		p := top[path.Join("node_modules", name)]
		if p == nil {
			return fmt.Errorf("its tree has no node_modules/%s", name)
		}
		c, err := npmsemver.NewConstraint(e.Packages[name])
		v, verr := npmsemver.NewVersion(p.Version)
		if err != nil || verr != nil || !c.Check(v) {
			return fmt.Errorf("it pins %s %s, which %s does not allow", name, p.Version, e.Packages[name])
		}
	}
	return nil
}

// Complete says what a go entry lacks for its require, which no platform
// changes (go.sum's hashes are of the modules' source): every required
// module in its build list, with the content's hash, at the version
// required or a later one (minimal version selection); nil when nothing.
func (e *GoEntry) Complete() error {
	if k := lang.PackagesKey(e.Require); k != e.Key {
		return fmt.Errorf("its require is %s, not its label's %s", k, e.Key)
	}
	for _, mod := range slices.Sorted(maps.Keys(e.Require)) {
		var found *GoModule
		for _, m := range e.Modules {
			if m.Path == mod && m.Sum != "" && (found == nil || semver.Compare(m.Version, found.Version) > 0) {
				found = m
			}
		}
		switch {
		case found == nil:
			return fmt.Errorf("its build list has no %s with its content's hash", mod)
		case semver.Compare(found.Version, e.Require[mod]) < 0:
			return fmt.Errorf("it pins %s %s, older than the %s required", mod, found.Version, e.Require[mod])
		}
	}
	return nil
}
