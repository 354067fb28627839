package cli

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
)

// Finding the files under paths: lang.FindFiles, lang.PathError and
// lang.FindFlowsAndBlockFiles, by the names the commands use.
var (
	findFiles              = lang.FindFiles
	pathError              = lang.PathError
	findFlowsAndBlockFiles = lang.FindFlowsAndBlockFiles
)

// flowArg is the FLOW argument of a command that takes one: the one given,
// else the current directory, as validate, test and fmt default to.
func flowArg(args []string) []string {
	if len(args) == 0 {
		return []string{"."}
	}
	return args
}

// flowPath resolves a FLOW argument: a flow file, or a directory holding
// exactly one *.flow.hcl file.
func flowPath(arg string) (string, hcl.Diagnostics) {
	info, err := os.Stat(arg)
	if err != nil {
		return "", hcl.Diagnostics{pathError(arg, err)}
	}
	if !info.IsDir() {
		return arg, nil
	}
	matches, _ := filepath.Glob(filepath.Join(arg, "*.flow.hcl"))
	switch len(matches) {
	case 1:
		return matches[0], nil
	case 0:
		return "", hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "No flow file",
			Detail:   "The directory " + arg + " holds no *.flow.hcl file; name a flow file or a directory with exactly one.",
		}}
	}
	names := make([]string, len(matches))
	for i, m := range matches {
		names[i] = filepath.Base(m)
	}
	return "", hcl.Diagnostics{{
		Severity: hcl.DiagError,
		Summary:  "More than one flow file",
		Detail:   "The directory " + arg + " holds several flows (" + strings.Join(names, ", ") + "); name the one you mean.",
	}}
}

func isHCLFile(p string) bool { return strings.HasSuffix(p, ".hcl") }
