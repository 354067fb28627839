// Package result holds the outcome of an evaluation (package evaluate runs
// them) as data: the cases as they finish, and the summary of an eval's
// variants and gates. What renders or stores an evaluation imports this
// package, which executes nothing.
package result

import (
	"encoding/json"
	"sort"
	"time"
)

// Score is one scorer's verdict on one case.
type Score struct {
	Name string `json:"name"`
	// Value is in [0, 1]: 1 or 0 for exact, contains, regex, json_schema
	// and numeric; the cosine for similarity; a judge's 1–5 as
	// (n-1)/4, pass/fail as 1 or 0.
	Value float64 `json:"value"`
	Pass  bool    `json:"pass"`
	// Reason is a judge's reason, or why a check did not hold.
	Reason string `json:"reason,omitempty"`
	// Error says why the scorer could not score (the value is 0, not a
	// pass).
	Error string `json:"error,omitempty"`
}

// Case is one dataset row run by one variant (one repetition of it).
type Case struct {
	Eval    string          `json:"eval"`
	Variant string          `json:"variant"`
	Row     int             `json:"row"`    // 0-based index in the dataset
	Repeat  int             `json:"repeat"` // 0-based
	Inputs  json.RawMessage `json:"inputs"`
	Outputs json.RawMessage `json:"outputs,omitempty"`
	// Error is the run's error when it failed (its scores are then 0).
	Error string `json:"error,omitempty"`
	// RunID names the run that produced the outputs (runs show RUN).
	RunID    string        `json:"run_id,omitempty"`
	Scores   []Score       `json:"scores"`
	Tokens   int64         `json:"tokens"`
	CostUSD  float64       `json:"cost_usd"`
	Duration time.Duration `json:"duration_ns"`
	// Cached: every step's result came from the result cache (no model
	// call was made for this case).
	Cached bool `json:"cached"`
}

// Stat is a score's mean over a variant's cases, with its 95% confidence
// interval.
type Stat struct {
	Mean float64 `json:"mean"`
	Low  float64 `json:"low"`
	High float64 `json:"high"`
	N    int     `json:"n"`
	// PassRate is the share of cases that passed; PassK, under --repeat
	// N, the share of rows whose N repetitions all passed (pass^k).
	PassRate float64 `json:"pass_rate"`
	PassK    float64 `json:"pass_k,omitempty"`
}

// Variant sums up one variant's cases.
type Variant struct {
	Name     string          `json:"name"`
	Cases    int             `json:"cases"`
	Errors   int             `json:"errors"` // runs that failed
	Scores   map[string]Stat `json:"scores"`
	Tokens   int64           `json:"tokens"`
	CostUSD  float64         `json:"cost_usd"`
	Duration time.Duration   `json:"duration_ns"` // the sum of the cases' run times
	Cached   int             `json:"cached"`      // cases that made no model call
}

// Gate is a gate's verdict.
type Gate struct {
	Score         string   `json:"score"`
	Variant       string   `json:"variant,omitempty"` // empty: every variant
	Min           *float64 `json:"min,omitempty"`
	MaxRegression *float64 `json:"max_regression,omitempty"`
	Held          bool     `json:"held"`
	Reason        string   `json:"reason,omitempty"`
}

// Summary is an evaluation's outcome.
type Summary struct {
	ID        string        `json:"id"` // the results' id in the state
	Eval      string        `json:"eval"`
	File      string        `json:"file"`
	Flow      string        `json:"flow"`
	StartedAt time.Time     `json:"started_at"`
	Duration  time.Duration `json:"duration_ns"`
	Variants  []Variant     `json:"variants"`
	Gates     []Gate        `json:"gates"`
	// Baseline is the id of the results compared with, when there was
	// one.
	Baseline string `json:"baseline,omitempty"`
}

// Held says whether every gate held.
func (s Summary) Held() bool {
	for _, g := range s.Gates {
		if !g.Held {
			return false
		}
	}
	return true
}

// Sink receives the cases of an evaluation as they finish (in no fixed
// order) and its summary at the end. The runner holds no case after
// handing it to the sink: memory stays bounded by the sink.
type Sink interface {
	Case(Case) error
	Summary(Summary) error
}

// Aggregator sums cases up into variants as they arrive, keeping per case
// only the score values (a float a score), so that an evaluation of many
// cases stays small.
type Aggregator struct {
	order    []string
	variants map[string]*agg
}

type agg struct {
	v      Variant
	values map[string][]float64
	passes map[string][]bool
	// rowPass[score][row] is false once a repetition of row failed.
	rowPass map[string]map[int]bool
}

// NewAggregator returns an empty aggregator.
func NewAggregator() *Aggregator { return &Aggregator{variants: map[string]*agg{}} }

// Add counts one case.
func (a *Aggregator) Add(c Case) {
	g := a.variants[c.Variant]
	if g == nil {
		g = &agg{v: Variant{Name: c.Variant}, values: map[string][]float64{}, passes: map[string][]bool{}, rowPass: map[string]map[int]bool{}}
		a.variants[c.Variant] = g
		a.order = append(a.order, c.Variant)
	}
	g.v.Cases++
	if c.Error != "" {
		g.v.Errors++
	}
	if c.Cached {
		g.v.Cached++
	}
	g.v.Tokens += c.Tokens
	g.v.CostUSD += c.CostUSD
	g.v.Duration += c.Duration
	for _, s := range c.Scores {
		g.values[s.Name] = append(g.values[s.Name], s.Value)
		g.passes[s.Name] = append(g.passes[s.Name], s.Pass)
		rp := g.rowPass[s.Name]
		if rp == nil {
			rp = map[int]bool{}
			g.rowPass[s.Name] = rp
		}
		prev, seen := rp[c.Row]
		rp[c.Row] = s.Pass && (prev || !seen)
	}
}

// Values returns a variant's values of a score, in the order they arrived.
func (a *Aggregator) Values(variant, score string) []float64 {
	if g := a.variants[variant]; g != nil {
		return g.values[score]
	}
	return nil
}

// Variants returns the variants' summaries in the order they first
// arrived, their scores' means and pass rates filled in (the confidence
// interval is left to Stats).
func (a *Aggregator) Variants() []Variant {
	out := make([]Variant, 0, len(a.order))
	for _, name := range a.order {
		g := a.variants[name]
		v := g.v
		v.Scores = map[string]Stat{}
		names := make([]string, 0, len(g.values))
		for n := range g.values {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			vals, ps := g.values[n], g.passes[n]
			st := Stat{N: len(vals)}
			for i, x := range vals {
				st.Mean += x
				if ps[i] {
					st.PassRate++
				}
			}
			if st.N > 0 {
				st.Mean /= float64(st.N)
				st.PassRate /= float64(st.N)
			}
			st.Low, st.High = st.Mean, st.Mean
			if rp := g.rowPass[n]; len(rp) > 0 && len(rp) < st.N {
				k := 0
				for _, ok := range rp {
					if ok {
						k++
					}
				}
				st.PassK = float64(k) / float64(len(rp))
			}
			v.Scores[n] = st
		}
		out = append(out, v)
	}
	return out
}
