package views

import (
	"fmt"
	"io"
	"strings"

	"github.com/flowctl/flowctl/blocks/blocktest"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/lang/diagjson"
	"github.com/flowctl/flowctl/runtime/event"
	"github.com/flowctl/flowctl/runtime/flowtest/result"
	"github.com/hashicorp/hcl/v2"
)

// Test renders the results of flowctl test.
type Test interface {
	// Block shows the results of one block's examples.
	Block(results []blocktest.Result)
	// Tests shows the results of flow tests; files are the parsed files
	// their failures point into.
	Tests(results []result.Result, files map[string]*hcl.File)
	// Done ends the output, given how many blocks were found, and returns
	// the command's error: exit 1 when an example failed.
	Done(blocks int) error
}

var (
	_ Test = (*testHuman)(nil)
	_ Test = (*testJSON)(nil)
	_ Test = testGitHub{}
	_ Test = (*junitReport)(nil)
)

// NewTest returns the view of a --format of flowctl test ("json",
// "github", else for people), showing files relative to the working
// directory wd. With junit, it also makes a JUnit XML report when done
// and hands it to junit (which writes the file of --junit).
func NewTest(w io.Writer, format, wd string, junit func(xml []byte) error) Test {
	var v Test = newTestHuman(w, wd)
	switch format {
	case "json":
		v = newTestJSON(w)
	case "github":
		v = testGitHub{newTestHuman(w, wd)}
	}
	if junit != nil {
		v = newJUnitReport(v, wd, junit)
	}
	return v
}

type testCounts struct {
	Passed  int `json:"passed"`
	Failed  int `json:"failed"`
	Errored int `json:"errored"`
	Skipped int `json:"skipped"`
}

func (c *testCounts) addTest(r result.Result) {
	switch r.Status {
	case result.StatusPassed:
		c.Passed++
	case result.StatusFailed:
		c.Failed++
	default:
		c.Errored++
	}
}

func (c *testCounts) add(r blocktest.Result) {
	switch r.Status {
	case blocktest.StatusPassed:
		c.Passed++
	case blocktest.StatusFailed:
		c.Failed++
	default:
		c.Skipped++
	}
}

func (c *testCounts) result() error {
	if c.Failed > 0 || c.Errored > 0 {
		return ErrReported
	}
	return nil
}

// testHuman prints a line per example, the error and diff of each failure,
// and the counts.
type testHuman struct {
	w      io.Writer
	wd     string // file names are relative to it
	counts testCounts
}

func newTestHuman(w io.Writer, wd string) *testHuman { return &testHuman{w: w, wd: wd} }

func (v *testHuman) Block(results []blocktest.Result) {
	for _, r := range results {
		v.counts.add(r)
		name := fmt.Sprintf("%s example %d", r.Block, r.Example)
		switch r.Status {
		case blocktest.StatusPassed:
			fmt.Fprintf(v.w, "PASS %s (%s)\n", name, FormatDuration(r.Duration))
		case blocktest.StatusSkipped:
			fmt.Fprintf(v.w, "SKIP %s: %s\n", name, r.Error)
		default:
			fmt.Fprintf(v.w, "FAIL %s (%s:%d)\n", name, r.Range.Filename, r.Range.Start.Line)
			writeIndented(v.w, "    ", r.Error)
			writeIndented(v.w, "      ", r.Diff)
		}
	}
}

func (v *testHuman) Tests(results []result.Result, files map[string]*hcl.File) {
	for _, r := range results {
		v.counts.addTest(r)
		word := map[result.Status]string{result.StatusPassed: "PASS", result.StatusFailed: "FAIL"}[r.Status]
		if word == "" {
			word = "ERROR"
		}
		if r.Runs > 0 {
			fmt.Fprintf(v.w, "%s %s (%s, %s): %d of %d runs passed, pass^%d %s\n", word, r.Test, testPlace(v.wd, r),
				FormatDuration(r.Duration), r.Passes, r.Runs, r.Runs, yesNo(r.Passes == r.Runs))
		} else {
			fmt.Fprintf(v.w, "%s %s (%s, %s)\n", word, r.Test, testPlace(v.wd, r), FormatDuration(r.Duration))
		}
		if len(r.Failures) > 0 {
			var b strings.Builder
			WriteDiagnostics(&b, false, files, r.Failures)
			writeIndented(v.w, "    ", b.String())
		}
	}
}

func (v *testHuman) Done(blocks int) error {
	c := v.counts
	if c.Passed+c.Failed+c.Errored+c.Skipped == 0 {
		fmt.Fprintf(v.w, "No examples or tests found in %s.\n", Plural(blocks, "block", "blocks"))
		return nil
	}
	fmt.Fprintf(v.w, "%d passed, %d failed, %d errored, %d skipped\n", c.Passed, c.Failed, c.Errored, c.Skipped)
	return c.result()
}

// writeIndented writes each line of text with a prefix, its control
// characters escaped (lang.EscapeControl).
func writeIndented(w io.Writer, prefix, text string) {
	text = strings.TrimRight(lang.EscapeControl(text), "\n")
	if text == "" {
		return
	}
	for _, line := range strings.Split(text, "\n") {
		fmt.Fprintf(w, "%s%s\n", prefix, line)
	}
}

// testJSON prints one object with the counts and every result.
type testJSON struct {
	w   io.Writer
	out jsonTest
}

type jsonTest struct {
	testCounts
	Results []any `json:"results"` // jsonTestResult and jsonFlowTestResult
}

// jsonFlowTestResult is a flow test's entry of --json.
type jsonFlowTestResult struct {
	Kind       string                `json:"kind"` // "test"
	Test       string                `json:"test"`
	File       string                `json:"file"`
	Status     string                `json:"status"`
	DurationMS int64                 `json:"duration_ms"`
	Range      *diagjson.Range       `json:"range,omitempty"`
	Failures   []diagjson.Diagnostic `json:"failures"`
	// With --repeat: how many runs, how many passed, and pass^N.
	Runs   *int  `json:"runs,omitempty"`
	Passes *int  `json:"passes,omitempty"`
	PassK  *bool `json:"pass_k,omitempty"`
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

type jsonTestResult struct {
	Kind       string          `json:"kind"` // "example"
	Block      string          `json:"block"`
	Example    int             `json:"example"`
	Status     string          `json:"status"`
	Error      string          `json:"error"`
	Diff       string          `json:"diff"`
	Expected   any             `json:"expected"`
	Actual     any             `json:"actual"`
	DurationMS int64           `json:"duration_ms"`
	Range      *diagjson.Range `json:"range,omitempty"`
}

func newTestJSON(w io.Writer) *testJSON {
	return &testJSON{w: w, out: jsonTest{Results: []any{}}}
}

func (v *testJSON) Block(results []blocktest.Result) {
	for _, r := range results {
		v.out.add(r)
		jr := jsonTestResult{
			Kind: "example", Block: r.Block, Example: r.Example, Status: string(r.Status), Error: r.Error, Diff: r.Diff,
			Expected: event.PlainJSON(r.Expected), Actual: event.PlainJSON(r.Actual),
			DurationMS: r.Duration.Milliseconds(),
		}
		jr.Range = jsonRange(r.Range)
		v.out.Results = append(v.out.Results, jr)
	}
}

func (v *testJSON) Tests(results []result.Result, files map[string]*hcl.File) {
	for _, r := range results {
		v.out.addTest(r)
		jr := jsonFlowTestResult{
			Kind: "test", Test: r.Test, File: r.Range.Filename, Status: string(r.Status),
			DurationMS: r.Duration.Milliseconds(), Range: jsonRange(r.Range),
			Failures: diagjson.New(files, r.Failures).Diagnostics,
		}
		if r.Runs > 0 {
			all := r.Passes == r.Runs
			jr.Runs, jr.Passes, jr.PassK = &r.Runs, &r.Passes, &all
		}
		v.out.Results = append(v.out.Results, jr)
	}
}

// jsonRange is a range in JSON; nil for none.
func jsonRange(rng hcl.Range) *diagjson.Range {
	if rng.Filename == "" {
		return nil
	}
	return &diagjson.Range{
		Filename: rng.Filename,
		Start:    diagjson.Pos{Line: rng.Start.Line, Column: rng.Start.Column, Byte: rng.Start.Byte},
		End:      diagjson.Pos{Line: rng.End.Line, Column: rng.End.Column, Byte: rng.End.Byte},
	}
}

func (v *testJSON) Done(int) error {
	if err := WriteJSON(v.w, v.out); err != nil {
		return err
	}
	return v.out.result()
}

// testPlace is where a test is: FILE:LINE, relative to wd.
func testPlace(wd string, r result.Result) string {
	return fmt.Sprintf("%s:%d", relPath(wd, r.Range.Filename), r.Range.Start.Line)
}
