package baseline

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/runtime/evaluate/result"
	"github.com/flowctl/flowctl/runtime/state"
)

// run keeps an evaluation of 10 rows in st, compared with the baseline
// arg when it is not "", the rows of bad scoring 0; it returns the
// summary as kept.
func run(t *testing.T, st *state.Store, arg string, bad map[int]bool, maxRegression float64) result.Summary {
	t.Helper()
	var cmpr *result.Comparer
	var baseID string
	if arg != "" {
		var err error
		if cmpr, baseID, err = Load(st, "triage", arg); err != nil {
			t.Fatal(err)
		}
	}
	w, err := st.NewEvalResult(&state.EvalResult{Eval: "triage", File: "triage.eval.hcl", Flow: "triage"})
	if err != nil {
		t.Fatal(err)
	}
	sinks := []result.Sink{w}
	if cmpr != nil {
		sinks = append(sinks, cmpr.Heads())
	}
	sink, agg := result.Tee(sinks...), result.NewAggregator()
	for row := 9; row >= 0; row-- {
		v := 1.0
		if bad[row] {
			v = 0
		}
		c := result.Case{Eval: "triage", Variant: "baseline", Row: row, Inputs: json.RawMessage(fmt.Sprintf(`{"ticket":%d}`, row)),
			Outputs: json.RawMessage(`{}`), Scores: []result.Score{{Name: "category", Value: v, Pass: v == 1}}}
		agg.Add(c)
		if err := sink.Case(c); err != nil {
			t.Fatal(err)
		}
	}
	sum := result.Summary{Eval: "triage", Variants: agg.Stats(), Gates: []result.Gate{{Score: "category", MaxRegression: &maxRegression, Held: true}}}
	if cmpr != nil {
		cmp := cmpr.Compare(baseID, w.ID())
		for i := range sum.Gates {
			sum.Gates[i] = cmp.Gate(sum.Gates[i])
		}
		sum.Baseline = baseID
	}
	if err := sink.Summary(sum); err != nil {
		t.Fatal(err)
	}
	sum.ID = w.ID()
	return sum
}

// TestLoad: --baseline latest is the eval's newest finished results, an
// ID or a results file (eval show --json's lines) names others; a gate's
// max_regression fails on a planted regression against it and holds
// without one; no results, an unknown ID and a bad file are errors.
func TestLoad(t *testing.T) {
	st, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, _, err := Load(st, "triage", Latest); !errors.Is(err, ErrNoBaseline) {
		t.Errorf("latest of nothing: %v", err)
	}
	first := run(t, st, "", nil, 0.05)
	same := run(t, st, Latest, nil, 0.05)
	if !same.Held() || same.Baseline != first.ID {
		t.Errorf("the same results against the latest: %+v", same.Gates)
	}
	worse := run(t, st, Latest, map[int]bool{3: true}, 0.05) // a drop of 0.1
	if worse.Held() || worse.Baseline != same.ID || !strings.Contains(worse.Gates[0].Reason, "dropped by 0.100") {
		t.Errorf("a planted regression against the latest: %+v", worse.Gates)
	}
	if held := run(t, st, first.ID, map[int]bool{3: true}, 0.1); !held.Held() {
		t.Errorf("a drop of 0.1 against max_regression 0.1: %+v", held.Gates)
	}

	// A results file: the lines of eval show --json, and bare ones.
	file := filepath.Join(t.TempDir(), "results.jsonl")
	var lines []string
	st.EvalCases(worse.ID, func(c result.Case) error {
		b, _ := json.Marshal(map[string]any{"case": c})
		if c.Row%2 == 0 {
			b, _ = json.Marshal(c)
		}
		lines = append(lines, string(b))
		return nil
	})
	sb, _ := json.Marshal(map[string]any{"summary": worse})
	os.WriteFile(file, []byte(strings.Join(append(lines, string(sb)), "\n")+"\n"), 0o644)
	n := 0
	sum, err := ReadFile(file, func(result.Case) error { n++; return nil })
	if err != nil || n != 10 || sum == nil || sum.ID != worse.ID {
		t.Fatalf("ReadFile: %d cases, %+v, %v", n, sum, err)
	}
	if better := run(t, st, file, nil, 0.05); !better.Held() || better.Baseline != file {
		t.Errorf("against the file: %+v", better.Gates)
	}
	cmp, err := Compare(st, file, first.ID)
	if err != nil || cmp.Improved != 1 || cmp.Regressed != 0 || cmp.Scores[0].Diff != 0.1 {
		t.Errorf("Compare(file, ID): %+v, %v", cmp, err)
	}

	if _, _, err := Load(st, "triage", "nosuchresults"); !errors.Is(err, ErrNoBaseline) {
		t.Errorf("an unknown ID: %v", err)
	}
	os.WriteFile(file, []byte("{\"case\": \n"), 0o644)
	if _, _, err := Load(st, "triage", file); err == nil || !strings.Contains(err.Error(), "results.jsonl:1") {
		t.Errorf("a bad file: %v", err)
	}
}

// TestEmptyBaselineRefused: results that did not finish, and a file that
// holds no case (another JSON file, or eval show --json of results that
// were interrupted), are no baseline: compared with them, every
// max_regression would hold unchecked.
func TestEmptyBaselineRefused(t *testing.T) {
	st, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	done := run(t, st, "", nil, 0.05)
	w, err := st.NewEvalResult(&state.EvalResult{Eval: "triage", File: "triage.eval.hcl", Flow: "triage"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	other, unfinished := filepath.Join(dir, "other.jsonl"), filepath.Join(dir, "unfinished.jsonl")
	os.WriteFile(other, []byte(`{"name": "not results"}`+"\n"), 0o644)
	os.WriteFile(unfinished, []byte(`{"summary":{"id":"x","eval":"triage","variants":null,"gates":null}}`+"\n"), 0o644)
	for arg, want := range map[string]string{
		w.ID():     "did not finish",
		other:      "holds no case of results",
		unfinished: "did not finish",
	} {
		if _, _, err := Load(st, "triage", arg); !errors.Is(err, ErrNoBaseline) || !strings.Contains(err.Error(), want) {
			t.Errorf("Load(%s): %v, want %q", arg, err, want)
		}
		if _, err := Compare(st, arg, done.ID); !errors.Is(err, ErrNoBaseline) || !strings.Contains(err.Error(), want) {
			t.Errorf("Compare(%s, …): %v, want %q", arg, err, want)
		}
	}
	if _, _, err := Load(st, "triage", Latest); err != nil {
		t.Errorf("latest, finished results being there: %v", err)
	}
}
