// Package baseline finds the results an evaluation is compared with
// (flowctl eval --baseline, eval compare): results kept in the state, by
// ID or the latest of an eval, or a results file, and feeds their cases to
// a result.Comparer. It reads; it runs nothing.
//
// An evaluation compared with a baseline, kept in the state, goes:
//
//	cmpr, baseID, err := baseline.Load(st, eval, arg) // before any case runs
//	w, err := st.NewEvalResult(&state.EvalResult{Eval: …, File: …, Flow: …})
//	sink := result.Tee(w, cmpr.Heads(), …)          // the runner's sink
//	… the cases run …
//	cmp := cmpr.Compare(baseID, w.ID())
//	for i := range sum.Gates { sum.Gates[i] = cmp.Gate(sum.Gates[i]) } // max_regression
//	sum.Baseline = baseID
//	err = sink.Summary(sum)
//	err = views.WriteEvalFiles(junit, report, sum, cmp, st.EvalCasesOf(w.ID()))
package baseline

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/flowctl/flowctl/runtime/evaluate/result"
	"github.com/flowctl/flowctl/runtime/state"
)

// Latest is the --baseline that names the latest finished results of the
// eval in the state.
const Latest = "latest"

// ErrNoBaseline is wrapped by the error of a baseline that is not there:
// no results of the eval yet, an unknown ID, a file that does not exist.
var ErrNoBaseline = errors.New("no baseline")

// Load returns a comparer holding the baseline's cases, and the
// baseline's ID (a file's is its path): arg is Latest (the newest
// finished results of eval in st), the ID of results in st (or a unique
// prefix of it), or a results file (eval show --json, or eval --json).
func Load(st *state.Store, eval, arg string) (*result.Comparer, string, error) {
	c := result.NewComparer()
	if arg == Latest {
		r, err := st.LatestEval(eval)
		if err != nil {
			return nil, "", err
		}
		if r == nil {
			return nil, "", fmt.Errorf("%w: the state has no finished results of eval %q to compare with", ErrNoBaseline, eval)
		}
		return c, r.ID, st.EvalCases(r.ID, func(k result.Case) error { c.AddBase(k); return nil })
	}
	id, err := load(st, arg, c.AddBase)
	if err != nil {
		return nil, "", err
	}
	return c, id, nil
}

// Compare compares the results a (the baseline) and b, each an ID of
// results in st or a results file.
func Compare(st *state.Store, a, b string) (*result.Comparison, error) {
	c := result.NewComparer()
	var ids [2]string
	for i, arg := range []string{a, b} {
		add := c.AddBase
		if i == 1 {
			add = c.AddHead
		}
		id, err := load(st, arg, add)
		if err != nil {
			return nil, err
		}
		ids[i] = id
	}
	return c.Compare(ids[0], ids[1]), nil
}

// load hands add the cases of results, a results file or the ID of
// results in st, and returns their ID (a file's is its path). Results
// that did not finish (running, or interrupted) or hold no case are
// refused: compared with them, every score would seem to have nothing to
// compare with, and a max_regression would hold unchecked.
func load(st *state.Store, arg string, add func(result.Case)) (string, error) {
	n := 0
	count := func(k result.Case) error { n++; add(k); return nil }
	if _, err := os.Stat(arg); err == nil {
		sum, err := ReadFile(arg, count)
		switch {
		case err != nil:
			return "", err
		case sum != nil && sum.Variants == nil:
			return "", fmt.Errorf("%w: the results in %s did not finish (running, or interrupted when they were saved): compare with finished results", ErrNoBaseline, arg)
		case n == 0:
			return "", fmt.Errorf("%w: %s holds no case of results (eval show ID --json writes them)", ErrNoBaseline, arg)
		}
		return arg, nil
	}
	r, err := st.EvalResult(arg)
	if err != nil {
		if errors.Is(err, state.ErrEvalNotFound) {
			return "", fmt.Errorf("%w: %q is neither a file nor the ID of results in the state (flowctl eval list)", ErrNoBaseline, arg)
		}
		return "", err
	}
	if r.Summary == nil {
		return "", fmt.Errorf("%w: the results %s did not finish (running, or interrupted): compare with finished results (flowctl eval list)", ErrNoBaseline, r.ID)
	}
	if err := st.EvalCases(r.ID, count); err != nil {
		return "", err
	}
	if n == 0 {
		return "", fmt.Errorf("%w: the results %s hold no case", ErrNoBaseline, r.ID)
	}
	return r.ID, nil
}

// ReadFile reads a results file, JSON lines: each a case, a summary, or
// either wrapped in an object of one member "case" or "summary" (other
// lines, those of neither, are skipped). It calls fn with each case as it
// reads it and returns the last summary, nil when there is none.
func ReadFile(path string, fn func(result.Case) error) (*result.Summary, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var sum *result.Summary
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(line, &fields); err != nil {
			return nil, fmt.Errorf("%s:%d: not a line of results: %v", path, n, err)
		}
		if inner, ok := fields["case"]; ok && len(fields) <= 2 {
			line, fields = inner, nil
			json.Unmarshal(inner, &fields)
		} else if inner, ok := fields["summary"]; ok && len(fields) <= 2 {
			line, fields = inner, nil
			json.Unmarshal(inner, &fields)
		}
		switch {
		case fields["variants"] != nil:
			sum = new(result.Summary)
			if err := json.Unmarshal(line, sum); err != nil {
				return nil, fmt.Errorf("%s:%d: not a summary of results: %v", path, n, err)
			}
		case fields["variant"] != nil && fields["scores"] != nil:
			var k result.Case
			if err := json.Unmarshal(line, &k); err != nil {
				return nil, fmt.Errorf("%s:%d: not a case of results: %v", path, n, err)
			}
			if err := fn(k); err != nil {
				return nil, err
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return sum, nil
}
