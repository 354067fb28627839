package views

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/flowctl/flowctl/blocks/blocktest"
	"github.com/flowctl/flowctl/runtime/flowtest/result"
	"github.com/hashicorp/hcl/v2"
)

// testGitHub is the human report plus a GitHub Actions workflow command
// for each failure, which GitHub shows as an annotation on its file.
type testGitHub struct {
	*testHuman
}

func (v testGitHub) Block(results []blocktest.Result) {
	v.testHuman.Block(results)
	var diags hcl.Diagnostics
	for _, r := range results {
		if r.Status == blocktest.StatusFailed {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError, Summary: fmt.Sprintf("%s example %d failed", r.Block, r.Example),
				Detail: strings.TrimSpace(r.Error + "\n" + r.Diff), Subject: r.Range.Ptr(),
			})
		}
	}
	writeGitHubDiagnostics(v.w, diags)
}

func (v testGitHub) Tests(results []result.Result, files map[string]*hcl.File) {
	v.testHuman.Tests(results, files)
	for _, r := range results {
		for _, d := range r.Failures {
			d := *d
			d.Summary = fmt.Sprintf("test %q: %s", r.Test, d.Summary)
			writeGitHubDiagnostics(v.w, hcl.Diagnostics{&d})
		}
	}
}

// junitReport is a Test that records every result and writes them as
// JUnit XML, one testsuite per file, when the run is done; the report the
// user sees is its inner view's.
type junitReport struct {
	Test
	wd     string                 // file names are relative to it
	save   func(xml []byte) error // writes the report
	suites map[string]*junitSuite
	order  []string
}

type junitSuites struct {
	XMLName xml.Name      `xml:"testsuites"`
	Suites  []*junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Seconds  string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
	time     float64     // the seconds of its cases, summed
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Error     *junitMessage `xml:"error,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

func newJUnitReport(inner Test, wd string, save func([]byte) error) *junitReport {
	return &junitReport{Test: inner, wd: wd, save: save, suites: map[string]*junitSuite{}}
}

func (j *junitReport) suite(file string) *junitSuite {
	s := j.suites[file]
	if s == nil {
		s = &junitSuite{Name: file}
		j.suites[file] = s
		j.order = append(j.order, file)
	}
	return s
}

// add adds c, a case of file that took d, to the file's suite.
func (j *junitReport) add(file string, d time.Duration, c junitCase) {
	s := j.suite(file)
	c.Classname, c.Time = file, seconds(d)
	s.time += d.Seconds()
	s.Tests++
	s.Seconds = fmt.Sprintf("%.3f", s.time)
	switch {
	case c.Failure != nil:
		s.Failures++
	case c.Error != nil:
		s.Errors++
	case c.Skipped != nil:
		s.Skipped++
	}
	s.Cases = append(s.Cases, c)
}

func (j *junitReport) Block(results []blocktest.Result) {
	j.Test.Block(results)
	for _, r := range results {
		c := junitCase{Name: fmt.Sprintf("%s example %d", r.Block, r.Example)}
		switch r.Status {
		case blocktest.StatusFailed:
			c.Failure = &junitMessage{Message: r.Error, Text: r.Diff}
		case blocktest.StatusSkipped:
			c.Skipped = &junitMessage{Message: r.Error}
		}
		j.add(relPath(j.wd, r.Range.Filename), r.Duration, c)
	}
}

func (j *junitReport) Tests(results []result.Result, files map[string]*hcl.File) {
	j.Test.Tests(results, files)
	for _, r := range results {
		c := junitCase{Name: r.Test}
		if len(r.Failures) > 0 {
			var b strings.Builder
			WriteDiagnostics(&b, false, files, r.Failures)
			m := &junitMessage{Message: r.Failures[0].Summary, Text: b.String()}
			if r.Status == result.StatusErrored {
				c.Error = m
			} else {
				c.Failure = m
			}
		}
		j.add(relPath(j.wd, r.Range.Filename), r.Duration, c)
	}
}

func (j *junitReport) Done(blocks int) error {
	err := j.Test.Done(blocks)
	out := junitSuites{}
	for _, f := range j.order {
		out.Suites = append(out.Suites, j.suites[f])
	}
	var b bytes.Buffer
	if werr := writeXML(&b, out); werr != nil {
		return fmt.Errorf("writing the JUnit report: %w", werr)
	}
	if werr := j.save(b.Bytes()); werr != nil {
		return fmt.Errorf("writing the JUnit report: %w", werr)
	}
	return err
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

func writeXML(w io.Writer, v any) error {
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
