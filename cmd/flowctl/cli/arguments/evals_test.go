package arguments

import (
	"path/filepath"
	"testing"

	"github.com/spf13/pflag"
)

// TestEvalArguments: eval's subcommands take their number of IDs, and a
// report is Markdown or HTML, both usage errors otherwise.
func TestEvalArguments(t *testing.T) {
	for _, c := range []struct {
		sub  string
		args []string
		ok   bool
	}{
		{"list", nil, true}, {"list", []string{"x"}, false},
		{"show", []string{"abcd"}, true}, {"show", nil, false},
		{"compare", []string{"a", "b"}, true}, {"compare", []string{"a"}, false},
	} {
		var a EvalResults
		a.Flags(c.sub, pflag.NewFlagSet(c.sub, pflag.ContinueOnError))
		if err := a.Args(c.args); (err == nil) != c.ok {
			t.Errorf("eval %s %v: %v", c.sub, c.args, err)
		}
	}
	var o EvalOutputs
	fs := pflag.NewFlagSet("eval", pflag.ContinueOnError)
	o.Flags(fs)
	if err := fs.Parse([]string{"--baseline", "latest", "--report", "out.txt"}); err != nil || o.Baseline != "latest" {
		t.Fatal(err)
	}
	if err := o.Check(); err == nil {
		t.Error("a report of .txt was accepted")
	}
	o.Report = "out.html"
	if err := o.Check(); err != nil {
		t.Error(err)
	}
	// A file in a directory that does not exist is refused before the
	// evaluation runs, not once it has.
	missing := filepath.Join(t.TempDir(), "nodir", "eval.xml")
	o.JUnit = missing
	if err := o.Check(); err == nil || err.Error() != "--junit "+missing+": there is no directory "+filepath.Dir(missing)+" to write it in" {
		t.Errorf("--junit in no directory: %v", err)
	}
	o.JUnit, o.Report = "", filepath.Join(filepath.Dir(missing), "r.md")
	if err := o.Check(); err == nil {
		t.Error("--report in no directory was accepted")
	}
}
