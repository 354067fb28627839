package lang

import (
	"regexp"
	"slices"
	"strings"

	npmsemver "github.com/Masterminds/semver/v3"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
)

// npmNamePattern is an npm package's name: lower case, optionally scoped
// (@scope/name), as the registry accepts new names.
var npmNamePattern = regexp.MustCompile(`^(?:@[a-z0-9~-][a-z0-9._~-]*/)?[a-z0-9~-][a-z0-9._~-]*$`)

// npmRangePattern is what a js block's package version may be made of: a
// semver range (1.2.3, ^1.6.6, ~2.0, >=1 <2, 1.x || 2.x), and nothing
// npm would read as a URL, a git repository, a path, an alias or a tag.
var npmRangePattern = regexp.MustCompile(`^[0-9A-Za-z.*^~<>=|+ -]+$`)

// IsNPMName says whether a name is an npm package's name.
func IsNPMName(name string) bool {
	return len(name) <= 214 && npmNamePattern.MatchString(name)
}

// stringMapAttr decodes an attribute that is a map of strings.
func stringMapAttr(a *hcl.Attribute) (map[string]string, hcl.Diagnostics) {
	v, diags := constOf(a, cty.Map(cty.String), a.Name+" argument")
	if diags.HasErrors() {
		return nil, diags
	}
	out := map[string]string{}
	for k, e := range v.AsValueMap() {
		if e.IsNull() {
			return nil, Error(a.Expr.Range(), "Invalid "+a.Name, "The %s must not contain null.", a.Name)
		}
		out[k] = strings.TrimSpace(e.AsString())
	}
	return out, nil
}

// decodePackages decodes a js block's packages: npm names and semver
// ranges.
func (def *BlockDef) decodePackages(a *hcl.Attribute) hcl.Diagnostics {
	pkgs, diags := stringMapAttr(a)
	if diags.HasErrors() {
		return diags
	}
	for _, name := range sortedKeys(pkgs) {
		r := pkgs[name]
		if !IsNPMName(name) {
			return Error(a.Expr.Range(), "Invalid package name",
				"%s is not an npm package's name, such as \"slugify\" or \"@scope/name\".", quote(name))
		}
		if _, err := npmsemver.NewConstraint(r); err != nil || !npmRangePattern.MatchString(r) {
			return Error(a.Expr.Range(), "Invalid package version",
				"The version of package %s, %s, is not a semver range such as \"^1.6.6\", \"4.1.0\" or \">=2 <3\" (URLs, git repositories, paths, aliases and tags are not allowed).", quote(name), quote(r))
		}
	}
	def.Packages, def.PackagesRange = pkgs, a.Expr.Range()
	return nil
}

// decodeRequire decodes a go block's require: module paths and exact
// versions.
func (def *BlockDef) decodeRequire(a *hcl.Attribute) hcl.Diagnostics {
	mods, diags := stringMapAttr(a)
	if diags.HasErrors() {
		return diags
	}
	for _, path := range sortedKeys(mods) {
		v := mods[path]
		if err := module.CheckPath(path); err != nil {
			return Error(a.Expr.Range(), "Invalid module path", "%s is not a Go module path: %s.", quote(path), err.Error())
		}
		if !semver.IsValid(v) || semver.Canonical(v) != v && semver.Canonical(v)+"+incompatible" != v {
			return Error(a.Expr.Range(), "Invalid module version",
				"The version of module %s, %s, is not an exact Go module version such as \"v1.18.0\".", quote(path), quote(v))
		}
		if err := module.Check(path, v); err != nil {
			return Error(a.Expr.Range(), "Invalid module version", "%s.", Sentence(err.Error()))
		}
	}
	def.Require, def.RequireRange = mods, a.Expr.Range()
	return nil
}

// checkDependencyArgs refuses packages on blocks other than js, and
// require on blocks other than compiled go: the interpreted engine runs
// only the standard library.
func (def *BlockDef) checkDependencyArgs(attrs hcl.Attributes) hcl.Diagnostics {
	var diags hcl.Diagnostics
	if a, ok := attrs["packages"]; ok && def.Runtime != RuntimeJS {
		diags = append(diags, Error(a.NameRange, "Unexpected argument",
			"The packages argument names the npm packages of js blocks; block %s has runtime %s.", quote(def.Name), quote(def.Runtime))...)
	}
	if a, ok := attrs["require"]; ok {
		switch {
		case def.Runtime != RuntimeGo:
			diags = append(diags, Error(a.NameRange, "Unexpected argument",
				"The require argument names the Go modules of go blocks; block %s has runtime %s.", quote(def.Name), quote(def.Runtime))...)
		case def.Engine != EngineCompiled:
			diags = append(diags, Error(a.NameRange, "Modules need the compiled engine",
				"Block %s requires Go modules, and the interpreted engine runs only the standard library: use engine = \"compiled\".", quote(def.Name))...)
		}
	}
	return diags
}

// PackagesKey is the canonical form of a js block's packages or a go
// block's require: name@version, sorted, joined by "; ". The lock file
// keeps one entry a key.
func PackagesKey(m map[string]string) string {
	var out []string
	for _, k := range sortedKeys(m) {
		out = append(out, k+"@"+strings.Join(strings.Fields(m[k]), " "))
	}
	return strings.Join(out, "; ")
}

// PackageOfImport is the package an import path names: "@scope/name" of
// "@scope/name/sub", "name" of "name/sub"; "" for a relative or absolute
// path.
func PackageOfImport(path string) string {
	if path == "" || strings.HasPrefix(path, ".") || strings.HasPrefix(path, "/") {
		return ""
	}
	parts := strings.SplitN(path, "/", 3)
	if strings.HasPrefix(path, "@") && len(parts) >= 2 {
		return parts[0] + "/" + parts[1]
	}
	return parts[0]
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Dependencies are a block's declared dependencies, one line each, as
// blocks show and docs list them: a python requirement as written
// ("numpy==2.1.*"), a js package as name@range, a go module as
// "path version"; nil for a block with none.
func (d *BlockDef) Dependencies() []string {
	if d == nil {
		return nil
	}
	var out []string
	for _, r := range d.Requirements {
		out = append(out, strings.Join(strings.Fields(r), ""))
	}
	for _, k := range sortedKeys(d.Packages) {
		out = append(out, k+"@"+d.Packages[k])
	}
	for _, k := range sortedKeys(d.Require) {
		out = append(out, k+" "+d.Require[k])
	}
	return out
}
