package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/flowctl/flowctl/blocks/blocktest"
	"github.com/flowctl/flowctl/lang/diagjson"
	"github.com/flowctl/flowctl/runtime"
)

// testView renders the results of flowctl test.
type testView interface {
	// Block shows the results of one block's examples.
	Block(results []blocktest.Result)
	// Done ends the output, given how many blocks were found, and returns
	// the command's error: exit 1 when an example failed.
	Done(blocks int) error
}

var (
	_ testView = (*testHuman)(nil)
	_ testView = (*testJSON)(nil)
)

type testCounts struct {
	Passed  int `json:"passed"`
	Failed  int `json:"failed"`
	Skipped int `json:"skipped"`
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
	if c.Failed > 0 {
		return exitError{exitFailure}
	}
	return nil
}

// testHuman prints a line per example, the error and diff of each failure,
// and the counts.
type testHuman struct {
	w      io.Writer
	counts testCounts
}

func newTestHuman(w io.Writer) *testHuman { return &testHuman{w: w} }

func (v *testHuman) Block(results []blocktest.Result) {
	for _, r := range results {
		v.counts.add(r)
		name := fmt.Sprintf("%s example %d", r.Block, r.Example)
		switch r.Status {
		case blocktest.StatusPassed:
			fmt.Fprintf(v.w, "PASS %s (%s)\n", name, formatDuration(r.Duration))
		case blocktest.StatusSkipped:
			fmt.Fprintf(v.w, "SKIP %s: %s\n", name, r.Error)
		default:
			fmt.Fprintf(v.w, "FAIL %s (%s:%d)\n", name, r.Range.Filename, r.Range.Start.Line)
			writeIndented(v.w, "    ", r.Error)
			writeIndented(v.w, "      ", r.Diff)
		}
	}
}

func (v *testHuman) Done(blocks int) error {
	c := v.counts
	if c.Passed+c.Failed+c.Skipped == 0 {
		fmt.Fprintf(v.w, "No examples found in %s.\n", plural(blocks, "block", "blocks"))
		return nil
	}
	fmt.Fprintf(v.w, "%d passed, %d failed, %d skipped\n", c.Passed, c.Failed, c.Skipped)
	return c.result()
}

// writeIndented writes each line of text with a prefix.
func writeIndented(w io.Writer, prefix, text string) {
	text = strings.TrimRight(text, "\n")
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
	Results []jsonTestResult `json:"results"`
}

type jsonTestResult struct {
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
	return &testJSON{w: w, out: jsonTest{Results: []jsonTestResult{}}}
}

func (v *testJSON) Block(results []blocktest.Result) {
	for _, r := range results {
		v.out.add(r)
		jr := jsonTestResult{
			Block: r.Block, Example: r.Example, Status: string(r.Status), Error: r.Error, Diff: r.Diff,
			Expected: runtime.PlainJSON(r.Expected), Actual: runtime.PlainJSON(r.Actual),
			DurationMS: r.Duration.Milliseconds(),
		}
		if rng := r.Range; rng.Filename != "" {
			jr.Range = &diagjson.Range{
				Filename: rng.Filename,
				Start:    diagjson.Pos{Line: rng.Start.Line, Column: rng.Start.Column, Byte: rng.Start.Byte},
				End:      diagjson.Pos{Line: rng.End.Line, Column: rng.End.Column, Byte: rng.End.Byte},
			}
		}
		v.out.Results = append(v.out.Results, jr)
	}
}

func (v *testJSON) Done(int) error {
	if err := writeJSON(v.w, v.out); err != nil {
		return err
	}
	return v.out.result()
}
