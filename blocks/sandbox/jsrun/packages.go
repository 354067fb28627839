package jsrun

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/flowctl/flowctl/blocks/sandbox"
	"github.com/flowctl/flowctl/blocks/sandbox/deps"
	"github.com/flowctl/flowctl/lang"
	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/hashicorp/hcl/v2"
)

// MaxBundleBytes bounds the size of a bundle: a block's source with its
// packages (deps.Bundle).
const MaxBundleBytes = 8 << 20

// bundledKey identifies a definition bundled with one locked entry.
type bundledKey struct {
	def  *lang.BlockDef
	hash string
}

// bundled are the definitions Bundled made, the same one for the same
// definition and lock: the pool keeps a definition's wire form by its
// pointer.
var bundled, _ = lru.New[bundledKey, *lang.BlockDef](MaxPrograms)

// Bundled returns the definition a js block with packages runs as: a copy
// whose source is the bundle of its source and its locked packages
// (deps.Bundle), which goja runs as it runs any block's source, in the
// same sandbox; the bundle's source map gives errors the lines of the
// block's own code. A block without packages is returned as it is. The
// packages are those the lock file beside the block's file pins
// (deps.JSOf): a block whose packages are not locked is refused.
func Bundled(ctx context.Context, def *lang.BlockDef) (*lang.BlockDef, error) {
	if def == nil || def.Runtime != lang.RuntimeJS || len(def.Packages) == 0 {
		return def, nil
	}
	fail := func(err error) error {
		var be *deps.BundleError
		if errors.As(err, &be) && be.Line > 0 {
			return (&srcError{line: be.Line, column: be.Column, msg: be.Text}).at(def)
		}
		return &sandbox.Error{Block: def.Name, Text: ": " + err.Error(), Range: def.PackagesRange, Err: err}
	}
	e, err := deps.JSOf(def.DeclRange.Filename, def.Packages)
	if err != nil {
		return nil, fail(err)
	}
	key := bundledKey{def, e.Hash()}
	if b, ok := bundled.Get(key); ok {
		return b, nil
	}
	code, err := deps.Bundle(ctx, e, def.Source)
	if err != nil {
		return nil, fail(err)
	}
	b := *def
	b.Source, b.Packages = code, nil
	bundled.Add(key, &b)
	return &b, nil
}

// checkPackages is Check for a block with packages: goja cannot parse
// import statements, so esbuild reads the source, and every path it
// imports must name one of the declared packages. A block whose packages
// no lock file pins is warned about (apply refuses it).
func checkPackages(def *lang.BlockDef) hcl.Diagnostics {
	imports, err := deps.Imports(def.Source)
	if err != nil {
		var be *deps.BundleError
		e := &srcError{msg: err.Error()}
		if errors.As(err, &be) {
			e.line, e.column = be.Line, be.Column
		}
		summary := "Invalid JavaScript"
		if strings.Contains(e.msg, `"execute"`) {
			summary, e.msg = "Missing execute function", "the source does not define a function execute(input, ctx); declare one at the top level"
		}
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: summary,
			Detail: fmt.Sprintf("In block %q: %s.", def.Name, strings.TrimSuffix(e.msg, ".")), Subject: e.at(def).Range.Ptr()}}
	}
	var diags hcl.Diagnostics
	declared := slices.Sorted(maps.Keys(def.Packages))
	for _, path := range imports {
		if name := lang.PackageOfImport(path); name != "" && def.Packages[name] != "" {
			continue
		}
		line := sourceLineOf(def.Source, path)
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Forbidden import",
			Detail: fmt.Sprintf("In block %q: the code imports %q, which is not one of the packages its packages argument declares (%s); declare it there, and run flowctl lock.",
				def.Name, path, strings.Join(declared, ", ")),
			Subject: sandbox.Range(def, line, 0, 0).Ptr()})
	}
	if _, err := deps.JSOf(def.DeclRange.Filename, def.Packages); err != nil {
		var nl *deps.NotLockedError
		if errors.As(err, &nl) {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Packages not locked",
				Detail:  fmt.Sprintf("Block %q: %s; apply installs only what the lock file says.", def.Name, nl),
				Subject: def.PackagesRange.Ptr()})
		} else {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid lock file",
				Detail: fmt.Sprintf("Block %q: %s.", def.Name, lang.Sentence(err.Error())), Subject: def.PackagesRange.Ptr()})
		}
	}
	return diags
}

// sourceLineOf is the first line of a source that quotes a path, 0 when
// none does.
func sourceLineOf(src, path string) int {
	for i, l := range strings.Split(src, "\n") {
		if strings.Contains(l, `"`+path+`"`) || strings.Contains(l, `'`+path+`'`) || strings.Contains(l, "`"+path+"`") {
			return i + 1
		}
	}
	return 0
}
