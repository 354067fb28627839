package views

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"html/template"
	"io"
	"os"
	"slices"
	"strings"
	ttemplate "text/template"
	"time"

	_ "embed"

	"github.com/flowctl/flowctl/runtime/evaluate/result"
)

// The files of flowctl eval --junit and --report (docs/evals.md,
// "Reports"): JUnit XML of one test case a dataset row × variant, and a
// report in Markdown or self-contained HTML of the variants × scores and
// the regressed cases with their outputs side by side.

// Cases calls fn with each case of an evaluation, in the order of their
// variant, row and repetition (state.Store.EvalCases), stopping at fn's
// first error. The JUnit writer calls it twice (its counts come first).
type Cases func(fn func(result.Case) error) error

// ReportedRegressions is how many of the regressed cases a report shows,
// the worst first.
const ReportedRegressions = 50

type evalJUnitSuites struct {
	XMLName xml.Name          `xml:"testsuites"`
	Name    string            `xml:"name,attr"`
	Tests   int               `xml:"tests,attr"`
	Fails   int               `xml:"failures,attr"`
	Errors  int               `xml:"errors,attr"`
	Suites  []*evalJUnitSuite `xml:"testsuite"`
}

type evalJUnitSuite struct {
	Name    string  `xml:"name,attr"`
	Tests   int     `xml:"tests,attr"`
	Fails   int     `xml:"failures,attr"`
	Errors  int     `xml:"errors,attr"`
	Seconds float64 `xml:"time,attr"`
}

type evalJUnitCase struct {
	XMLName   xml.Name      `xml:"testcase"`
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Error     *junitMessage `xml:"error,omitempty"`
}

// rowCase is a dataset row of a variant: its repetitions folded.
type rowCase struct {
	variant  string
	row      int
	dur      time.Duration
	errs     []string // the runs' errors
	failures []string // the scores that did not pass, with why
}

// rowCases calls fn with each row × variant of cases, its repetitions
// folded (cases come by variant, row and repetition).
func rowCases(cases Cases, fn func(rowCase)) error {
	var cur *rowCase
	err := cases(func(c result.Case) error {
		if cur != nil && (cur.variant != c.Variant || cur.row != c.Row) {
			fn(*cur)
			cur = nil
		}
		if cur == nil {
			cur = &rowCase{variant: c.Variant, row: c.Row}
		}
		cur.dur += c.Duration
		rep := ""
		if c.Repeat > 0 {
			rep = fmt.Sprintf(" (repetition %d)", c.Repeat+1)
		}
		if c.Error != "" {
			cur.errs = append(cur.errs, c.Error+rep)
		}
		for _, s := range c.Scores {
			if !s.Pass {
				why := strings.TrimSpace(s.Error + " " + s.Reason)
				if why != "" {
					why = ": " + why
				}
				cur.failures = append(cur.failures, fmt.Sprintf("%s = %.3g%s%s", s.Name, s.Value, why, rep))
			}
		}
		return nil
	})
	if err == nil && cur != nil {
		fn(*cur)
	}
	return err
}

// WriteEvalJUnit writes the cases as JUnit XML: a testsuite a variant
// (named EVAL/VARIANT), a testcase a dataset row ("row N"), failed when a
// score of a repetition did not pass, an error when its run failed. Rows
// are counted from 1, as --only's case names count them.
func WriteEvalJUnit(w io.Writer, sum result.Summary, cases Cases) error {
	head := evalJUnitSuites{Name: sum.Eval}
	index := map[string]*evalJUnitSuite{}
	err := rowCases(cases, func(r rowCase) {
		s := index[r.variant]
		if s == nil {
			s = &evalJUnitSuite{Name: sum.Eval + "/" + r.variant}
			index[r.variant] = s
			head.Suites = append(head.Suites, s)
		}
		s.Tests++
		s.Seconds += r.dur.Seconds()
		switch {
		case len(r.errs) > 0:
			s.Errors++
		case len(r.failures) > 0:
			s.Fails++
		}
	})
	if err != nil {
		return err
	}
	for _, s := range head.Suites {
		head.Tests, head.Fails, head.Errors = head.Tests+s.Tests, head.Fails+s.Fails, head.Errors+s.Errors
	}
	// The suites' elements are opened and closed by hand around the
	// cases, written as the second pass reads them.
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	start := xml.StartElement{Name: xml.Name{Local: "testsuites"}, Attr: []xml.Attr{
		{Name: xml.Name{Local: "name"}, Value: head.Name}, {Name: xml.Name{Local: "tests"}, Value: fmt.Sprint(head.Tests)},
		{Name: xml.Name{Local: "failures"}, Value: fmt.Sprint(head.Fails)}, {Name: xml.Name{Local: "errors"}, Value: fmt.Sprint(head.Errors)},
	}}
	if err := enc.EncodeToken(start); err != nil {
		return err
	}
	var open *evalJUnitSuite
	suiteStart := func(s *evalJUnitSuite) xml.StartElement {
		return xml.StartElement{Name: xml.Name{Local: "testsuite"}, Attr: []xml.Attr{
			{Name: xml.Name{Local: "name"}, Value: s.Name}, {Name: xml.Name{Local: "tests"}, Value: fmt.Sprint(s.Tests)},
			{Name: xml.Name{Local: "failures"}, Value: fmt.Sprint(s.Fails)}, {Name: xml.Name{Local: "errors"}, Value: fmt.Sprint(s.Errors)},
			{Name: xml.Name{Local: "time"}, Value: fmt.Sprintf("%.3f", s.Seconds)},
		}}
	}
	var werr error
	err = rowCases(cases, func(r rowCase) {
		if werr != nil {
			return
		}
		if s := index[r.variant]; s != open {
			if open != nil {
				werr = enc.EncodeToken(xml.EndElement{Name: xml.Name{Local: "testsuite"}})
			}
			open = s
			if werr == nil {
				werr = enc.EncodeToken(suiteStart(s))
			}
		}
		c := evalJUnitCase{Name: fmt.Sprintf("row %d", r.row+1), Classname: sum.Eval + "." + r.variant, Time: fmt.Sprintf("%.3f", r.dur.Seconds())}
		if len(r.errs) > 0 {
			c.Error = &junitMessage{Message: r.errs[0], Text: strings.Join(r.errs, "\n")}
		} else if len(r.failures) > 0 {
			c.Failure = &junitMessage{Message: r.failures[0], Text: strings.Join(r.failures, "\n")}
		}
		if werr == nil {
			werr = enc.Encode(c)
		}
	})
	if err != nil {
		return err
	}
	if werr != nil {
		return werr
	}
	if open != nil {
		if err := enc.EncodeToken(xml.EndElement{Name: xml.Name{Local: "testsuite"}}); err != nil {
			return err
		}
	}
	if err := enc.EncodeToken(start.End()); err != nil {
		return err
	}
	if err := enc.Flush(); err != nil {
		return err
	}
	_, err = io.WriteString(w, "\n")
	return err
}

// evalReport is what a report shows.
type evalReport struct {
	Sum         result.Summary
	Scores      []string // the scores' names, sorted
	Cmp         *result.Comparison
	Regressions []result.Change // the worst ReportedRegressions
	More        int             // regressions left out
}

func newEvalReport(sum result.Summary, cmp *result.Comparison) evalReport {
	r := evalReport{Sum: sum, Cmp: cmp}
	seen := map[string]bool{}
	for _, v := range sum.Variants {
		for n := range v.Scores {
			if !seen[n] {
				seen[n] = true
				r.Scores = append(r.Scores, n)
			}
		}
	}
	slices.Sort(r.Scores)
	if cmp != nil {
		r.Regressions = cmp.Regressions()
		if len(r.Regressions) > ReportedRegressions {
			r.More = len(r.Regressions) - ReportedRegressions
			r.Regressions = r.Regressions[:ReportedRegressions]
		}
	}
	return r
}

var reportFuncs = map[string]any{
	"stat": func(v result.Variant, name string) string {
		st, ok := v.Scores[name]
		if !ok {
			return "–"
		}
		s := fmt.Sprintf("%.3f [%.3f, %.3f]", st.Mean, st.Low, st.High)
		if st.PassK > 0 {
			s += fmt.Sprintf(" pass^k %.2f", st.PassK)
		}
		return s
	},
	"f3":   func(x float64) string { return fmt.Sprintf("%.3f", x) },
	"sign": func(x float64) string { return fmt.Sprintf("%+.3f", x) },
	"cost": func(x float64) string { return fmt.Sprintf("$%.4f", x) },
	"dur":  func(d time.Duration) string { return d.Round(time.Millisecond).String() },
	"when": func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") },
	"js":   readableJSON,
	// md escapes text for Markdown: what would break a table's cell, and
	// what would make markup of it (HTML, a link or an image that a
	// viewer would fetch).
	"md": func(s string) string {
		return strings.NewReplacer(`\`, `\\`, "|", `\|`, "\n", " ", "\r", " ", "<", "&lt;", ">", "&gt;", "`", "'", "[", `\[`, "]", `\]`).Replace(s)
	},
	// mdcode escapes text for a Markdown code span in a table's cell,
	// where nothing is markup and an entity is shown as it is written.
	"mdcode": func(s string) string {
		return strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ", "`", "'").Replace(s)
	},
	// row is a case's row as people count them, from 1.
	"row": func(n int) int { return n + 1 },
}

//go:embed templates/eval_report.md.tmpl
var reportMarkdown string

//go:embed templates/eval_report.html.tmpl
var reportHTML string

var (
	reportMarkdownTmpl = ttemplate.Must(ttemplate.New("md").Funcs(reportFuncs).Parse(reportMarkdown))
	reportHTMLTmpl     = template.Must(template.New("html").Funcs(reportFuncs).Parse(reportHTML))
)

// WriteEvalReport writes an evaluation's report, HTML when html is set,
// else Markdown; cmp, when not nil, is its comparison with a baseline.
func WriteEvalReport(w io.Writer, html bool, sum result.Summary, cmp *result.Comparison) error {
	if html {
		return reportHTMLTmpl.Execute(w, newEvalReport(sum, cmp))
	}
	// Markdown is text, its cells escaped by md.
	return reportMarkdownTmpl.Execute(w, newEvalReport(sum, cmp))
}

// WriteEvalFiles writes eval's --junit and --report files ("": none) of
// an evaluation; cmp, when not nil, is its comparison with a baseline.
func WriteEvalFiles(junit, report string, sum result.Summary, cmp *result.Comparison, cases func(func(result.Case) error) error) error {
	write := func(name string, fn func(w io.Writer) error) error {
		f, err := os.Create(name)
		if err != nil {
			return err
		}
		return errors.Join(fn(f), f.Close())
	}
	if junit != "" {
		if err := write(junit, func(w io.Writer) error { return WriteEvalJUnit(w, sum, cases) }); err != nil {
			return err
		}
	}
	if report != "" {
		return write(report, func(w io.Writer) error { return WriteEvalReport(w, strings.HasSuffix(report, ".html"), sum, cmp) })
	}
	return nil
}

// readableJSON is a JSON value as a report shows it: HTML's characters
// unescaped (the template escapes them), its text as it is when it is no
// JSON (an output cut to result.MaxKeptOutput).
func readableJSON(m json.RawMessage) string {
	var v any
	d := json.NewDecoder(bytes.NewReader(m))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return string(m)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return string(m)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
