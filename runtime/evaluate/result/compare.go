package result

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// The comparison of an evaluation with a baseline: per variant and score,
// the difference of the means with its confidence interval and a paired
// test of the cases both have, and the cases whose scores changed.
//
// Cases are paired by variant and inputs (a row moved in the dataset is
// still the same case); repetitions of a case are averaged first. The
// paired test is the paired bootstrap (PairedDiff): the difference is more
// than noise when its 95% interval leaves out 0.

// MaxKeptOutput is how much of a case's outputs (bytes of JSON) a Comparer
// keeps to show a changed case's outputs side by side; longer ones are
// cut, and no longer JSON.
const MaxKeptOutput = 2048

// ScoreDiff compares a score of a variant.
type ScoreDiff struct {
	Variant  string  `json:"variant"`
	Score    string  `json:"score"`
	BaseMean float64 `json:"base_mean"`
	HeadMean float64 `json:"head_mean"`
	// Diff is the mean of the differences of the paired cases (head minus
	// base), Low and High its 95% confidence interval; with no paired
	// case, the difference of the means, with no interval.
	Diff float64 `json:"diff"`
	Low  float64 `json:"low"`
	High float64 `json:"high"`
	// Paired is how many cases both have; P the paired test's two-sided
	// p-value; Significant whether the difference is more than noise (the
	// interval leaves out 0).
	Paired      int     `json:"paired"`
	P           float64 `json:"p"`
	Significant bool    `json:"significant"`
}

// Change is a case whose score changed: its mean over the repetitions in
// the baseline (Base) and now (Head).
type Change struct {
	Variant     string          `json:"variant"`
	Row         int             `json:"row"` // the row now
	Score       string          `json:"score"`
	Base        float64         `json:"base"`
	Head        float64         `json:"head"`
	Delta       float64         `json:"delta"` // Head - Base
	Inputs      json.RawMessage `json:"inputs,omitempty"`
	BaseOutputs json.RawMessage `json:"base_outputs,omitempty"`
	HeadOutputs json.RawMessage `json:"head_outputs,omitempty"`
	BaseError   string          `json:"base_error,omitempty"`
	HeadError   string          `json:"head_error,omitempty"`
	BaseRun     string          `json:"base_run,omitempty"`
	HeadRun     string          `json:"head_run,omitempty"`
}

// Comparison is an evaluation compared with a baseline.
type Comparison struct {
	Base   string      `json:"base"` // the results' ids
	Head   string      `json:"head"`
	Scores []ScoreDiff `json:"scores"`
	// Changed are the changed cases, the regressions first, the worst
	// first, then the improvements, the best first.
	Changed   []Change `json:"changed"`
	Improved  int      `json:"improved"`
	Regressed int      `json:"regressed"`
}

// Regressions are the changes of the comparison that made a score worse.
func (c *Comparison) Regressions() []Change {
	return c.Changed[:c.Regressed]
}

// Diff returns the comparison of a variant's score, and whether the
// baseline has it.
func (c *Comparison) Diff(variant, score string) (ScoreDiff, bool) {
	for _, d := range c.Scores {
		if d.Variant == variant && d.Score == score {
			return d, true
		}
	}
	return ScoreDiff{}, false
}

// Gate checks a gate's max_regression against the comparison: the gate
// fails when the score of its variant (of any, when it names none)
// dropped by more than MaxRegression from the baseline. A gate without
// max_regression, or a score the baseline does not have, is returned as
// it is: Gate only ever makes a gate fail.
func (c *Comparison) Gate(g Gate) Gate {
	if g.MaxRegression == nil {
		return g
	}
	for _, d := range c.Scores {
		if d.Score != g.Score || g.Variant != "" && d.Variant != g.Variant {
			continue
		}
		if drop := -d.Diff; drop > *g.MaxRegression+1e-12 {
			noise := "the paired test finds it more than noise"
			if !d.Significant {
				noise = "the paired test cannot tell it from noise"
			}
			reason := fmt.Sprintf("%s of variant %s dropped by %.3f against the baseline (%.3f → %.3f; 95%% CI of the difference %.3f to %.3f, %s), more than max_regression %g",
				g.Score, d.Variant, drop, d.BaseMean, d.HeadMean, d.Low, d.High, noise, *g.MaxRegression)
			g.Held = false
			if g.Reason == "" {
				g.Reason = reason
			} else if !strings.Contains(g.Reason, reason) {
				g.Reason += "; " + reason
			}
		}
	}
	return g
}

// A Comparer compares the cases of an evaluation with those of a
// baseline, handed to it in any order. Per case it keeps each score's sum
// over the repetitions, and the outputs cut to MaxKeptOutput.
type Comparer struct {
	scores []string // the scores' names, by index
	index  map[string]int
	sides  [2]map[string]*pairCase // base, head; by pairKey
	order  [2][]string             // keys in the order they came, for determinism
}

type pairCase struct {
	variant string
	row     int
	inputs  json.RawMessage
	outputs json.RawMessage
	err     string
	run     string
	sums    []float64 // by score index
	counts  []int32
}

// NewComparer returns an empty comparer.
func NewComparer() *Comparer {
	return &Comparer{index: map[string]int{}, sides: [2]map[string]*pairCase{{}, {}}}
}

// AddBase counts a case of the baseline.
func (c *Comparer) AddBase(k Case) { c.add(0, k) }

// AddHead counts a case of the evaluation compared with it.
func (c *Comparer) AddHead(k Case) { c.add(1, k) }

// pairKey is a case's key: its variant and a hash of its inputs, which
// may be large (a dataset's row) and are kept only cut to MaxKeptOutput.
func pairKey(variant string, inputs json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, inputs) != nil {
		b.Reset()
		b.Write(inputs)
	}
	sum := sha256.Sum256(b.Bytes())
	return variant + "\x00" + string(sum[:])
}

func (c *Comparer) add(side int, k Case) {
	key := pairKey(k.Variant, k.Inputs)
	p := c.sides[side][key]
	if p == nil {
		p = &pairCase{variant: k.Variant, row: k.Row, inputs: cut(k.Inputs), outputs: cut(k.Outputs), err: k.Error, run: k.RunID}
		c.sides[side][key] = p
		c.order[side] = append(c.order[side], key)
	}
	for _, s := range k.Scores {
		i, ok := c.index[s.Name]
		if !ok {
			i = len(c.scores)
			c.index[s.Name] = i
			c.scores = append(c.scores, s.Name)
		}
		for len(p.sums) <= i {
			p.sums, p.counts = append(p.sums, 0), append(p.counts, 0)
		}
		p.sums[i] += s.Value
		p.counts[i]++
	}
}

func cut(m json.RawMessage) json.RawMessage {
	if len(m) <= MaxKeptOutput {
		return slices.Clone(m)
	}
	return json.RawMessage(fmt.Sprintf("%q", string(m[:MaxKeptOutput])+"…"))
}

// mean is the case's mean of score i, and whether it has the score.
func (p *pairCase) mean(i int) (float64, bool) {
	if i >= len(p.counts) || p.counts[i] == 0 {
		return 0, false
	}
	return p.sums[i] / float64(p.counts[i]), true
}

// Compare compares what was added; base and head are the results' ids.
func (c *Comparer) Compare(base, head string) *Comparison {
	out := &Comparison{Base: base, Head: head, Scores: []ScoreDiff{}, Changed: []Change{}}
	variants := []string{}
	seen := map[string]bool{}
	for _, key := range c.order[1] {
		if v := c.sides[1][key].variant; !seen[v] {
			seen[v] = true
			variants = append(variants, v)
		}
	}
	names := slices.Clone(c.scores)
	slices.Sort(names)
	var improved []Change
	for _, v := range variants {
		for _, name := range names {
			i := c.index[name]
			var baseVals, headVals, before, after []float64
			for _, key := range c.order[0] {
				if p := c.sides[0][key]; p.variant == v {
					if m, ok := p.mean(i); ok {
						baseVals = append(baseVals, m)
					}
				}
			}
			if len(baseVals) == 0 {
				continue // the baseline has no such score of this variant
			}
			for _, key := range c.order[1] {
				h := c.sides[1][key]
				if h.variant != v {
					continue
				}
				hm, ok := h.mean(i)
				if !ok {
					continue
				}
				headVals = append(headVals, hm)
				b := c.sides[0][key]
				if b == nil {
					continue
				}
				bm, ok := b.mean(i)
				if !ok {
					continue
				}
				before, after = append(before, bm), append(after, hm)
				if hm != bm {
					ch := Change{Variant: v, Row: h.row, Score: name, Base: bm, Head: hm, Delta: hm - bm,
						Inputs: h.inputs, BaseOutputs: b.outputs, HeadOutputs: h.outputs,
						BaseError: b.err, HeadError: h.err, BaseRun: b.run, HeadRun: h.run}
					if ch.Delta < 0 {
						out.Changed = append(out.Changed, ch)
					} else {
						improved = append(improved, ch)
					}
				}
			}
			if len(headVals) == 0 {
				continue
			}
			d := ScoreDiff{Variant: v, Score: name, BaseMean: meanOf(baseVals), HeadMean: meanOf(headVals), Paired: len(before), P: 1}
			if d.Paired > 0 {
				d.Diff, d.Low, d.High, d.P = PairedDiff(before, after)
				d.Significant = d.Low > 0 || d.High < 0
			} else {
				d.Diff = d.HeadMean - d.BaseMean
				d.Low, d.High = d.Diff, d.Diff
			}
			out.Scores = append(out.Scores, d)
		}
	}
	byDelta := func(a, b Change) int {
		if c := cmpFloat(a.Delta, b.Delta); c != 0 {
			return c
		}
		if c := strings.Compare(a.Variant, b.Variant); c != 0 {
			return c
		}
		if a.Row != b.Row {
			return a.Row - b.Row
		}
		return strings.Compare(a.Score, b.Score)
	}
	slices.SortStableFunc(out.Changed, byDelta)
	slices.SortStableFunc(improved, func(a, b Change) int {
		a.Delta, b.Delta = -a.Delta, -b.Delta
		return byDelta(a, b)
	})
	out.Regressed, out.Improved = len(out.Changed), len(improved)
	out.Changed = append(out.Changed, improved...)
	return out
}

// Heads is a Sink that adds the cases of an evaluation to a comparer as
// they finish (AddHead); its Summary does nothing.
func (c *Comparer) Heads() Sink { return heads{c} }

type heads struct{ c *Comparer }

func (h heads) Case(k Case) error     { h.c.AddHead(k); return nil }
func (h heads) Summary(Summary) error { return nil }

// Tee is a Sink that hands each case and the summary to every sink, in
// order, stopping at the first error.
func Tee(sinks ...Sink) Sink { return tee(sinks) }

type tee []Sink

func (t tee) Case(k Case) error {
	for _, s := range t {
		if err := s.Case(k); err != nil {
			return err
		}
	}
	return nil
}

func (t tee) Summary(sum Summary) error {
	for _, s := range t {
		if err := s.Summary(sum); err != nil {
			return err
		}
	}
	return nil
}
