package cli

import (
	"strings"

	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
)

// pathError is the diagnostic of a path that cannot be read
// (lang.PathError).
func pathError(path string, err error) *hcl.Diagnostic { return lang.PathError(path, err) }

func isHCLFile(p string) bool { return strings.HasSuffix(p, ".hcl") }
