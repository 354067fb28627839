package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// validateView renders the result of validate: the diagnostics of the
// flows and block files it checked.
type validateView interface {
	Result(files map[string]*hcl.File, diags hcl.Diagnostics, flows, blockFiles, testFiles int) error
}

var (
	_ validateView = validateHuman{}
	_ validateView = validateJSON{}
	_ validateView = validateGitHub{}
)

// newValidateView returns the view of a --format.
func newValidateView(s streams, format string) validateView {
	switch format {
	case "json":
		return validateJSON{s.out}
	case "github":
		return validateGitHub{s.out}
	}
	return validateHuman{s}
}

// validateHuman prints the diagnostics with their snippets on stderr and a
// line that sums up.
type validateHuman struct{ s streams }

func (v validateHuman) Result(files map[string]*hcl.File, diags hcl.Diagnostics, flows, blockFiles, testFiles int) error {
	writeHumanDiagnostics(v.s.err, files, diags)
	if !diags.HasErrors() {
		fmt.Fprintf(v.s.out, "Success! %s, %s and %s are valid.\n",
			plural(flows, "flow", "flows"), plural(blockFiles, "block file", "block files"), plural(testFiles, "test file", "test files"))
		return nil
	}
	errs, warns := countDiags(diags)
	fmt.Fprintf(v.s.err, "Validation failed: %s, %s.\n", plural(errs, "error", "errors"), plural(warns, "warning", "warnings"))
	return nil
}

// validateJSON prints Terraform's validate -json object.
type validateJSON struct{ w io.Writer }

func (v validateJSON) Result(files map[string]*hcl.File, diags hcl.Diagnostics, _, _, _ int) error {
	_, err := newJSONValidate(files, diags).WriteTo(v.w)
	return err
}

// validateGitHub prints GitHub Actions workflow commands, which GitHub
// shows as annotations on the pull request's files.
type validateGitHub struct{ w io.Writer }

func (v validateGitHub) Result(_ map[string]*hcl.File, diags hcl.Diagnostics, _, _, _ int) error {
	writeGitHubDiagnostics(v.w, diags)
	return nil
}

// writeGitHubDiagnostics writes a workflow command per diagnostic.
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
