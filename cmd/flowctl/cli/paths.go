package cli

import (
	"strings"

	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
)

// pathError is the diagnostic of a path that cannot be read
// (lang.PathError).
func pathError(path string, err error) *hcl.Diagnostic { return lang.PathError(path, err) }

// flowArg is the FLOW argument of a command that takes one: the one given,
// else the current directory, as validate, test and fmt default to.
func flowArg(args []string) []string {
	if len(args) == 0 {
		return []string{"."}
	}
	return args
}

func isHCLFile(p string) bool { return strings.HasSuffix(p, ".hcl") }
