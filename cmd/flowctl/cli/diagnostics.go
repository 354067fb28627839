package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/flowctl/flowctl/lang/diagjson"
	"github.com/hashicorp/hcl/v2"
	"golang.org/x/term"
)

// writeHumanDiagnostics prints diagnostics with HCL's text writer: a source
// snippet, a caret under the range and the wrapped detail. Colour is used
// only when w is a terminal.
func writeHumanDiagnostics(w io.Writer, files map[string]*hcl.File, diags hcl.Diagnostics) {
	if len(diags) == 0 {
		return
	}
	width, color := uint(78), false
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		color = os.Getenv("NO_COLOR") == ""
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 20 {
			width = uint(cols - 2)
		}
	}
	hcl.NewDiagnosticTextWriter(w, files, width, color).WriteDiagnostics(diags)
}

// JSON output of validate (docs/design.md, "Commands"), the shape of Terraform's validate -json,
// lives in package diagjson, which the thinker uses too.

const jsonFormatVersion = diagjson.FormatVersion

type (
	jsonValidate   = diagjson.Validate
	jsonDiagnostic = diagjson.Diagnostic
)

func newJSONValidate(files map[string]*hcl.File, diags hcl.Diagnostics) jsonValidate {
	return diagjson.New(files, diags)
}

// writeGitHubDiagnostics prints GitHub Actions workflow commands, which
// GitHub shows as annotations on the pull request's files.
func writeGitHubDiagnostics(w io.Writer, diags hcl.Diagnostics) {
	for _, d := range diags {
		kind := "error"
		if d.Severity == hcl.DiagWarning {
			kind = "warning"
		}
		msg := d.Summary
		if d.Detail != "" {
			msg += ": " + d.Detail
		}
		if d.Subject == nil {
			fmt.Fprintf(w, "::%s::%s\n", kind, escapeGitHubData(msg))
			continue
		}
		s := d.Subject
		fmt.Fprintf(w, "::%s file=%s,line=%d,col=%d::%s\n", kind,
			escapeGitHubProperty(s.Filename), s.Start.Line, s.Start.Column, escapeGitHubData(msg))
	}
}

func escapeGitHubData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func escapeGitHubProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// countDiags returns the numbers of errors and warnings.
func countDiags(diags hcl.Diagnostics) (errs, warns int) {
	for _, d := range diags {
		if d.Severity == hcl.DiagError {
			errs++
		} else {
			warns++
		}
	}
	return
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
