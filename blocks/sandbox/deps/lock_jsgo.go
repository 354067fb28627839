package deps

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"

	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
	"golang.org/x/mod/module"
)

// JSEntry is the locked npm packages of one js block's packages: every
// package of the tree, with the place it has in it (npm's layout: a
// package another needs in a different version is nested under it).
type JSEntry struct {
	// Key is the packages' canonical form (lang.PackagesKey).
	Key      string            `hcl:"key,label"`
	Packages map[string]string `hcl:"packages"`
	Tree     []*JSPackage      `hcl:"package,block"`
	Range    hcl.Range         `hcl:",def_range"`
}

// JSPackage is one package of a JS entry's tree.
type JSPackage struct {
	// Path is where it is unpacked: node_modules/a, or
	// node_modules/a/node_modules/b.
	Path    string `hcl:"path,label"`
	Name    string `hcl:"name"`
	Version string `hcl:"version"`
	// Resolved is its tarball's URL and Integrity the tarball's
	// Subresource Integrity (sha512-BASE64), as npm's lock has them.
	Resolved  string `hcl:"resolved"`
	Integrity string `hcl:"integrity"`
}

// GoEntry is the locked modules of one compiled go block's require: the
// modules required and every module of their build list, with go.sum's
// hashes.
type GoEntry struct {
	// Key is the requirements' canonical form (lang.PackagesKey).
	Key     string            `hcl:"key,label"`
	Require map[string]string `hcl:"require"`
	Modules []*GoModule       `hcl:"module,block"`
	Range   hcl.Range         `hcl:",def_range"`
}

// GoModule is one module of a Go entry: its version, the h1: hash of its
// content (empty when only its go.mod is needed) and of its go.mod.
type GoModule struct {
	Path     string `hcl:"path,label"`
	Version  string `hcl:"version"`
	Sum      string `hcl:"sum"`
	GoModSum string `hcl:"gomod_sum"`
}

// Hash identifies a JS entry's exact content: its tree is kept under it.
func (e *JSEntry) Hash() string {
	h := sha256.New()
	fmt.Fprintf(h, "js\x00%s\x00", e.Key)
	for _, p := range e.sorted() {
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%s\x00", p.Path, p.Name, p.Version, p.Resolved, p.Integrity)
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

func (e *JSEntry) sorted() []*JSPackage {
	pkgs := slices.Clone(e.Tree)
	slices.SortFunc(pkgs, func(a, b *JSPackage) int { return strings.Compare(a.Path, b.Path) })
	return pkgs
}

// Hash identifies a Go entry's exact content.
func (e *GoEntry) Hash() string {
	h := sha256.New()
	fmt.Fprintf(h, "go\x00%s\x00", e.Key)
	for _, m := range e.sorted() {
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00", m.Path, m.Version, m.Sum, m.GoModSum)
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

func (e *GoEntry) sorted() []*GoModule {
	mods := slices.Clone(e.Modules)
	slices.SortFunc(mods, func(a, b *GoModule) int {
		return strings.Compare(a.Path+"@"+a.Version, b.Path+"@"+b.Version)
	})
	return mods
}

// JSFor returns the entry of a js block's packages, nil when the lock has
// none.
func (l *Lock) JSFor(pkgs map[string]string) *JSEntry {
	if l == nil {
		return nil
	}
	key := lang.PackagesKey(pkgs)
	for _, e := range l.JS {
		if e.Key == key {
			return e
		}
	}
	return nil
}

// GoFor returns the entry of a go block's require, nil when the lock has
// none.
func (l *Lock) GoFor(req map[string]string) *GoEntry {
	if l == nil {
		return nil
	}
	key := lang.PackagesKey(req)
	for _, e := range l.Go {
		if e.Key == key {
			return e
		}
	}
	return nil
}

// JSOf returns the locked entry of the packages of a js block defined in
// file, as PythonOf does for requirements.
func JSOf(file string, pkgs map[string]string) (*JSEntry, error) {
	lock, path, err := lockOf(file)
	if err != nil {
		return nil, err
	}
	if e := lock.JSFor(pkgs); e != nil {
		return e, nil
	}
	return nil, &NotLockedError{Lock: path, Key: lang.PackagesKey(pkgs)}
}

// GoOf returns the locked entry of the require of a go block defined in
// file.
func GoOf(file string, req map[string]string) (*GoEntry, error) {
	lock, path, err := lockOf(file)
	if err != nil {
		return nil, err
	}
	if e := lock.GoFor(req); e != nil {
		return e, nil
	}
	return nil, &NotLockedError{Lock: path, Key: lang.PackagesKey(req)}
}

func lockOf(file string) (*Lock, string, error) {
	path := Find(file)
	if path == "" {
		return nil, "", &NotLockedError{}
	}
	lock, err := readCached(path)
	return lock, path, err
}

// checkJSGo refuses JS and Go entries a lock file could not have been
// given by flowctl lock: paths outside node_modules, integrity that is not
// sha512, hashes that are not h1.
func (l *Lock) checkJSGo(file string) hcl.Diagnostics {
	for _, e := range l.JS {
		if lang.PackagesKey(e.Packages) != e.Key {
			return lang.Error(e.Range, "Invalid lock file", "The packages of entry %q of %s are not its key.", e.Key, file)
		}
		for _, p := range e.Tree {
			if !p.inTree() {
				return lang.Error(e.Range, "Invalid lock file", "The package path %q of %s is not node_modules/NAME.", p.Path, file)
			}
			if _, err := semver.StrictNewVersion(p.Version); err != nil {
				return lang.Error(e.Range, "Invalid lock file", "The package %s of %s has no exact version (%q).", p.Path, file, p.Version)
			}
			if !integrityPattern.MatchString(p.Integrity) {
				return lang.Error(e.Range, "Invalid lock file", "The package %s of %s has no sha512 integrity.", p.Path, file)
			}
			if u, err := url.Parse(p.Resolved); err != nil || u.Scheme != "https" && u.Scheme != "http" || u.Host == "" || u.User != nil {
				return lang.Error(e.Range, "Invalid lock file", "The package %s of %s is resolved to %q, which is not an http or https URL of a registry.", p.Path, file, p.Resolved)
			}
		}
	}
	for _, e := range l.Go {
		if lang.PackagesKey(e.Require) != e.Key {
			return lang.Error(e.Range, "Invalid lock file", "The require of entry %q of %s is not its key.", e.Key, file)
		}
		for _, m := range e.Modules {
			// Path and version are written into a go.mod: a module
			// check refuses what would read as another directive.
			if err := module.Check(m.Path, m.Version); err != nil {
				return lang.Error(e.Range, "Invalid lock file", "The module %q of %s: %s.", m.Path, file, lang.Sentence(err.Error()))
			}
			if !h1Pattern.MatchString(m.GoModSum) || m.Sum != "" && !h1Pattern.MatchString(m.Sum) {
				return lang.Error(e.Range, "Invalid lock file", "The module %s of %s has no h1: hash.", m.Path, file)
			}
		}
	}
	return nil
}

// inTree says whether a package's path is node_modules/NAME, nested
// under another package's or not: one that could leave the tree it is
// unpacked into is not. A polyfill is at the built-in module it stands
// for (node_modules/timers for timers-browserify).
func (p *JSPackage) inTree() bool {
	clean := path.Clean(p.Path)
	return clean == p.Path && strings.HasPrefix(clean, "node_modules/") && !strings.Contains(clean, "..") &&
		(strings.HasSuffix(clean, "node_modules/"+p.Name) || aliasOK(p, clean)) && lang.IsNPMName(p.Name)
}

// What a lock file's hashes may be: npm's sha512 integrity, go.sum's h1.
var (
	integrityPattern = regexp.MustCompile(`^sha512-[A-Za-z0-9+/]{86}==$`)
	h1Pattern        = regexp.MustCompile(`^h1:[A-Za-z0-9+/]{43}=$`)
)

// appendJSGo writes the JS and Go entries, sorted.
func (l *Lock) appendJSGo(body *hclwrite.Body) {
	js := slices.Clone(l.JS)
	slices.SortFunc(js, func(a, b *JSEntry) int { return strings.Compare(a.Key, b.Key) })
	for _, e := range js {
		body.AppendNewline()
		b := body.AppendNewBlock("js", []string{e.Key}).Body()
		b.SetAttributeValue("packages", stringMap(e.Packages))
		for _, p := range e.sorted() {
			b.AppendNewline()
			pb := b.AppendNewBlock("package", []string{p.Path}).Body()
			pb.SetAttributeValue("name", cty.StringVal(p.Name))
			pb.SetAttributeValue("version", cty.StringVal(p.Version))
			pb.SetAttributeValue("resolved", cty.StringVal(p.Resolved))
			pb.SetAttributeValue("integrity", cty.StringVal(p.Integrity))
		}
	}
	gos := slices.Clone(l.Go)
	slices.SortFunc(gos, func(a, b *GoEntry) int { return strings.Compare(a.Key, b.Key) })
	for _, e := range gos {
		body.AppendNewline()
		b := body.AppendNewBlock("go", []string{e.Key}).Body()
		b.SetAttributeValue("require", stringMap(e.Require))
		for _, m := range e.sorted() {
			b.AppendNewline()
			mb := b.AppendNewBlock("module", []string{m.Path}).Body()
			mb.SetAttributeValue("version", cty.StringVal(m.Version))
			mb.SetAttributeValue("sum", cty.StringVal(m.Sum))
			mb.SetAttributeValue("gomod_sum", cty.StringVal(m.GoModSum))
		}
	}
}

func stringMap(m map[string]string) cty.Value {
	if len(m) == 0 {
		return cty.MapValEmpty(cty.String)
	}
	vals := map[string]cty.Value{}
	for k, v := range m {
		vals[k] = cty.StringVal(v)
	}
	return cty.MapVal(vals)
}
