package views

import (
	"fmt"
	"io"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// Validate renders the result of validate: the diagnostics of the
// flows and block files it checked.
type Validate interface {
	Result(files map[string]*hcl.File, diags hcl.Diagnostics, flows, blockFiles, testFiles int) error
}

var (
	_ Validate = validateHuman{}
	_ Validate = validateJSON{}
	_ Validate = validateGitHub{}
)

// NewValidate returns the view of a --format: results on out; for people,
// diagnostics on errw, in colour with errColor.
func NewValidate(out, errw io.Writer, errColor bool, format string) Validate {
	switch format {
	case "json":
		return validateJSON{out}
	case "github":
		return validateGitHub{out}
	}
	return validateHuman{out, errw, errColor}
}

// validateHuman prints the diagnostics with their snippets on stderr and a
// line that sums up.
type validateHuman struct {
	out, err io.Writer
	color    bool
}

func (v validateHuman) Result(files map[string]*hcl.File, diags hcl.Diagnostics, flows, blockFiles, testFiles int) error {
	WriteDiagnostics(v.err, v.color, files, diags)
	if !diags.HasErrors() {
		fmt.Fprintf(v.out, "Success! %s, %s and %s are valid.\n",
			Plural(flows, "flow", "flows"), Plural(blockFiles, "block file", "block files"), Plural(testFiles, "test file", "test files"))
		return nil
	}
	errs, warns := CountDiags(diags)
	fmt.Fprintf(v.err, "Validation failed: %s, %s.\n", Plural(errs, "error", "errors"), Plural(warns, "warning", "warnings"))
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
