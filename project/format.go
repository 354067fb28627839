package project

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
)

// Formatting is what Format did.
type Formatting struct {
	// Files are the files that changed, and standard input, in the
	// order of the paths.
	Files []lang.Formatted
	// Parsed are the files parsed for the diagnostics' snippets.
	Parsed map[string]*hcl.File
	Diags  hcl.Diagnostics
}

// Format formats every *.hcl file under paths (recursively; the path "-"
// is stdin) in canonical style, and rewrites the files that change when
// write is set (atomically: lang.WriteFileAtomic). A file that does not
// parse is a diagnostic and is left as it is.
func Format(paths []string, stdin io.Reader, write bool) Formatting {
	parser := lang.NewParser()
	var res Formatting
	format := func(name string, src []byte, fromStdin bool) bool {
		out, d := lang.Format(src, name)
		if d.HasErrors() {
			parser.ParseSource(src, name)
			res.Diags = append(res.Diags, d...)
			return false
		}
		f := lang.Formatted{Name: name, Before: src, After: out, Stdin: fromStdin}
		if fromStdin || f.Changed() {
			res.Files = append(res.Files, f)
		}
		return f.Changed()
	}
	var files []string
	for _, p := range paths {
		if p != "-" {
			found, d := Find([]string{p}, func(p string) bool { return strings.HasSuffix(p, ".hcl") })
			res.Diags = append(res.Diags, d...)
			files = append(files, found...)
			continue
		}
		src, err := io.ReadAll(stdin)
		if err != nil {
			res.Diags = append(res.Diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot read standard input", Detail: lang.Sentence(err.Error())})
			continue
		}
		format("<stdin>", src, true)
	}
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			res.Diags = append(res.Diags, lang.PathError(name, err))
			continue
		}
		if !format(name, src, false) || !write {
			continue
		}
		if err := lang.WriteFileAtomic(name, res.Files[len(res.Files)-1].After); err != nil {
			res.Diags = append(res.Diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Cannot write file",
				Detail:   fmt.Sprintf("The formatted %s could not be written: %s.", name, err),
			})
		}
	}
	res.Parsed = parser.Files()
	return res
}
