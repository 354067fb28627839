package evaluate

import (
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/project"
	"github.com/hashicorp/hcl/v2"
)

// LoadOptions are how Load compiles the evals' flows.
type LoadOptions struct {
	// Registries are the registry directories of the flows' blocks.
	Registries []string
	// GoEngine builds the flows' go blocks (compiler.Options.GoEngine).
	GoEngine string
}

// CompileOptions are the options an eval's flow is compiled with.
func (o LoadOptions) CompileOptions(parser *lang.Parser) compiler.Options {
	return compiler.Options{Parser: parser, RegistryDirs: o.Registries, GoEngine: o.GoEngine, Build: true}
}

// Find loads the evals of the eval files under paths (project.Find,
// then Load).
func Find(parser *lang.Parser, paths []string, o LoadOptions) ([]*compiler.Eval, hcl.Diagnostics) {
	files, diags := project.Find(paths, lang.IsEvalFile)
	evals, d := Load(parser, files, o)
	return evals, append(diags, d...)
}

// Load decodes the evals of the eval files (*.eval.hcl) among files and
// checks each (compiler.CompileEval). An eval with errors is reported and
// left out.
func Load(parser *lang.Parser, files []string, o LoadOptions) ([]*compiler.Eval, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	var out []*compiler.Eval
	for _, file := range files {
		if !lang.IsEvalFile(file) {
			continue
		}
		f, d := parser.ParseFile(file)
		diags = append(diags, d...)
		if d.HasErrors() {
			continue
		}
		defs, d := lang.DecodeEvalFile(f)
		diags = append(diags, d...)
		decodeErrors := d.HasErrors()
		for _, def := range defs {
			ev, d := compiler.CompileEval(def, o.CompileOptions(parser))
			diags = append(diags, d...)
			if !d.HasErrors() && !decodeErrors {
				out = append(out, ev)
			}
		}
	}
	return out, diags
}
