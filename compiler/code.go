package compiler

import (
	"github.com/flowctl/flowctl/blocks/sandbox/gobuild"
	"github.com/flowctl/flowctl/blocks/sandbox/gorun"
	"github.com/flowctl/flowctl/blocks/sandbox/jsrun"
	"github.com/flowctl/flowctl/blocks/sandbox/pyrun"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
)

// code compiles the source of every go, js and python block in the
// registry: a syntax error, an import outside the allowlist, an Execute of
// the wrong type or a missing execute function is an error at its line in
// the flow or block file.
func (c *compilation) code() hcl.Diagnostics {
	var defs []*lang.BlockDef
	for _, b := range c.prog.Registry.All() {
		if b.Def != nil {
			defs = append(defs, b.Def)
		}
	}
	return checkCode(defs, c.opts.GoEngine, c.opts.Build)
}

// CheckCode compiles the code of block definitions (go blocks with the
// sandbox's allowlist, interpreted by yaegi or built by the Go toolchain
// for engine = "compiled"; js blocks with goja; python blocks parsed by
// CPython, with one helper process for all of them) and reports what does
// not compile. A python block on a machine without a python interpreter
// is an error (pyrun.NotFoundSummary): a run would fail; validate, which
// only checks, makes it a warning (ForChecking).
//
// goEngine, when set, is the engine every go block is checked for.
func CheckCode(defs []*lang.BlockDef, goEngine string) hcl.Diagnostics {
	return checkCode(defs, goEngine, true)
}

// checkCode is CheckCode; without build a compiled block is only vetted
// (Options.Build).
func checkCode(defs []*lang.BlockDef, goEngine string, build bool) hcl.Diagnostics {
	diags := pyrun.Check(defs)
	for _, def := range defs {
		if def.Source == "" {
			continue
		}
		switch def.Runtime {
		case lang.RuntimeGo:
			if def.Compiled(goEngine) && build {
				// The interpreter's limits are not the compiler's: the
				// code is vetted and built (and kept for the runs).
				diags = append(diags, gobuild.Default().Check(def)...)
				continue
			}
			if def.Compiled(goEngine) {
				_, d, _ := gorun.Vet(def)
				diags = append(diags, d...)
				continue
			}
			diags = append(diags, gorun.Check(def)...)
		case lang.RuntimeJS:
			diags = append(diags, jsrun.Check(def)...)
		}
	}
	return diags
}

// ForChecking turns the errors that say a block's runtime is missing on
// this machine (no python interpreter) into warnings: validate checks a
// flow, which may run elsewhere; apply, plan and test refuse it.
func ForChecking(diags hcl.Diagnostics) hcl.Diagnostics {
	for _, d := range diags {
		if d.Severity == hcl.DiagError && d.Summary == pyrun.NotFoundSummary {
			d.Severity = hcl.DiagWarning
			d.Detail += " apply and test will fail until there is one."
		}
	}
	return diags
}
