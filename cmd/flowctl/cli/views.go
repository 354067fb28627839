package cli

import (
	"io"
	"os"

	"github.com/flowctl/flowctl/blocks/llm"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/hashicorp/hcl/v2"
	"golang.org/x/term"
)

// What the views (package views) are told rather than find out: they read
// neither the environment nor the terminal's settings.

// colorTerminal reports whether w is a terminal that may show colours.
func colorTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd())) && os.Getenv("NO_COLOR") == ""
}

// defaultModel is the model of llm steps that name none: FLOWCTL_MODEL,
// else llm.DefaultModel.
func defaultModel() string {
	if cfg, err := llm.ConfigFromEnv(os.LookupEnv); err == nil {
		return cfg.Model
	}
	return llm.DefaultModel
}

// workDir is the working directory, which views show paths relative to;
// "" when it cannot be read.
func workDir() string {
	wd, _ := os.Getwd()
	return wd
}

// saveJUnit is what writes the JUnit report of test --junit to path; nil
// without one.
func saveJUnit(path string) func([]byte) error {
	if path == "" {
		return nil
	}
	return func(xml []byte) error { return os.WriteFile(path, xml, 0o666) }
}

// writeHumanDiagnostics prints diagnostics for people (views.WriteDiagnostics),
// in colour on a terminal.
func writeHumanDiagnostics(w io.Writer, files map[string]*hcl.File, diags hcl.Diagnostics) {
	views.WriteDiagnostics(w, colorTerminal(w), files, diags)
}
