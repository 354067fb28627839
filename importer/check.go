package importer

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
)

// Check compiles the generated flows, written to a temporary directory
// with their blocks, as validate would. A generated flow that
// does not validate is a fault of the importer; it is reported and
// nothing is written.
func Check(files []File) hcl.Diagnostics {
	dir, err := os.MkdirTemp("", "flowctl-import-")
	if err != nil {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot check the flows", Detail: err.Error()}}
	}
	defer os.RemoveAll(dir)
	var flows []string
	for _, f := range files {
		path := filepath.Join(dir, filepath.FromSlash(f.Name))
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, f.Bytes, 0o644); err != nil {
			return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot check the flows", Detail: err.Error()}}
		}
		if strings.HasSuffix(f.Name, ".flow.hcl") {
			flows = append(flows, path)
		}
	}
	var diags hcl.Diagnostics
	for _, path := range flows {
		_, d := compiler.Compile(path, compiler.Options{Parser: lang.NewParser()})
		// A flow with a python block validates on a machine without
		// python, as flowctl validate says (it runs where there is one).
		if d = compiler.ForChecking(d); d.HasErrors() {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Generated flow does not validate",
				Detail: fmt.Sprintf("flowctl import generated %s, which does not validate: %s This is a fault of flowctl import; please report it with the source file.",
					filepath.Base(path), lang.Sentence(firstError(d))),
			})
		}
	}
	return diags
}

// firstError is the first error of d, as "Summary: Detail".
func firstError(d hcl.Diagnostics) string {
	for _, e := range d {
		if e.Severity == hcl.DiagError {
			return e.Summary + ": " + e.Detail
		}
	}
	return ""
}
