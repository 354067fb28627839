package arguments

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"
)

// EvalResults is eval list, eval show ID and eval compare A B: results of
// evaluations kept in the state.
type EvalResults struct {
	State  State
	JSON   bool     // --json
	JUnit  string   // --junit FILE (show, compare)
	Report string   // --report FILE.md|FILE.html (show, compare)
	Sub    string   // list, show or compare
	IDs    []string // show's ID; compare's A and B
}

// Flags adds the flags of eval's subcommand sub.
func (a *EvalResults) Flags(sub string, fs *pflag.FlagSet) {
	a.Sub = sub
	a.State.Flags(fs)
	fs.BoolVar(&a.JSON, "json", false, "print JSON (show: one line a case, then the summary: a results file for --baseline)")
	if sub != "list" {
		fs.StringVar(&a.JUnit, "junit", "", "also write JUnit XML to this file, one test case a dataset row × variant")
		fs.StringVar(&a.Report, "report", "", "also write a report to this file: Markdown (.md) or self-contained HTML (.html)")
	}
}

// Args reads the results' IDs: none for list, one for show, two for
// compare.
func (a *EvalResults) Args(args []string) error {
	want := map[string]int{"list": 0, "show": 1, "compare": 2}[a.Sub]
	if len(args) != want {
		return Usagef("eval %s takes %d ID(s) of results (flowctl eval list shows them), not %d", a.Sub, want, len(args))
	}
	a.IDs = args
	return outputFiles(a.JUnit, a.Report)
}

// ReportFile checks a --report file's name: it ends in .md or .html.
func ReportFile(name string) error {
	if name != "" && !strings.HasSuffix(name, ".md") && !strings.HasSuffix(name, ".html") {
		return Usagef("--report %s: a report is Markdown (FILE.md) or HTML (FILE.html)", name)
	}
	return nil
}

// EvalOutputs are the flags of flowctl eval that compare its results and
// write them to files: --baseline, --junit and --report.
type EvalOutputs struct {
	Baseline string // --baseline RESULTS|latest: an ID of results, a results file, or latest
	JUnit    string // --junit FILE
	Report   string // --report FILE.md|FILE.html
}

// Flags adds the flags.
func (a *EvalOutputs) Flags(fs *pflag.FlagSet) {
	fs.StringVar(&a.Baseline, "baseline", "", "compare with earlier results: their ID (flowctl eval list), a results file (eval show --json), or latest (this eval's newest in the state)")
	fs.StringVar(&a.JUnit, "junit", "", "also write JUnit XML to this file, one test case a dataset row × variant")
	fs.StringVar(&a.Report, "report", "", "also write a report to this file: Markdown (.md) or self-contained HTML (.html)")
}

// Check checks the flags' values.
func (a *EvalOutputs) Check() error { return outputFiles(a.JUnit, a.Report) }

// outputFiles checks the files of --junit and --report ("": none): a
// report's name says its format, and each goes to a directory that
// exists, found out before an evaluation pays for its model calls.
func outputFiles(junit, report string) error {
	if err := ReportFile(report); err != nil {
		return err
	}
	for flag, name := range map[string]string{"--junit": junit, "--report": report} {
		if name == "" {
			continue
		}
		if fi, err := os.Stat(filepath.Dir(name)); err != nil || !fi.IsDir() {
			return Usagef("%s %s: there is no directory %s to write it in", flag, name, filepath.Dir(name))
		}
	}
	return nil
}
