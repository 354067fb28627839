package result

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestMeanCI: the interval holds the mean, is the same for the same
// values in any order, narrows as the cases grow, and is the mean alone
// when the values do not vary.
func TestMeanCI(t *testing.T) {
	xs := make([]float64, 200)
	for i := range xs {
		xs[i] = float64(i%10) / 10 // mean 0.45
	}
	mean, low, high := MeanCI(xs)
	if math.Abs(mean-0.45) > 1e-12 || !(low < mean && mean < high) || low < 0.40 || high > 0.50 {
		t.Fatalf("MeanCI = %v [%v, %v]", mean, low, high)
	}
	shuffled := append([]float64(nil), xs...)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	if m2, l2, h2 := MeanCI(shuffled); m2 != mean || l2 != low || h2 != high {
		t.Errorf("the same values shuffled: %v [%v, %v], want %v [%v, %v]", m2, l2, h2, mean, low, high)
	}
	if xs[0] != 0 || xs[1] != 0.1 {
		t.Error("MeanCI modified its argument")
	}
	_, l20, h20 := MeanCI(xs[:20])
	if !(h20-l20 > high-low) {
		t.Errorf("20 values' interval %v wide, 200 values' %v: the fewer should be wider", h20-l20, high-low)
	}
	if m, l, h := MeanCI([]float64{1, 1, 1}); m != 1 || l != 1 || h != 1 {
		t.Errorf("constant values: %v [%v, %v]", m, l, h)
	}
	if m, l, h := MeanCI(nil); m != 0 || l != 0 || h != 0 {
		t.Errorf("no values: %v [%v, %v]", m, l, h)
	}
}

// TestAggregatorStats: Stats fills in the intervals that Variants leaves
// at the mean, and pass^k counts the rows whose repetitions all passed.
func TestAggregatorStats(t *testing.T) {
	a := NewAggregator()
	for row := range 10 {
		for rep := range 3 {
			pass := row < 6 || (row < 8 && rep < 2) // rows 6, 7 fail once; 8, 9 always
			v := 0.0
			if pass {
				v = 1
			}
			a.Add(Case{Variant: "base", Row: row, Repeat: rep, Scores: []Score{{Name: "exact", Value: v, Pass: pass}}})
		}
	}
	st := a.Stats()[0].Scores["exact"]
	if st.N != 30 || math.Abs(st.Mean-22.0/30) > 1e-12 || math.Abs(st.PassK-0.6) > 1e-12 || !(st.Low < st.Mean && st.Mean < st.High) {
		t.Fatalf("stats %+v", st)
	}
	if v := a.Variants()[0].Scores["exact"]; v.Low != v.Mean {
		t.Errorf("Variants computed an interval: %+v", v)
	}
}

// TestPairedDiff: a difference every pair shows is more than noise; one
// pair of many that differs, both ways evenly, is not.
func TestPairedDiff(t *testing.T) {
	before := make([]float64, 40)
	after := make([]float64, 40)
	for i := range before {
		before[i] = 1
		after[i] = 1
		if i%4 == 0 {
			after[i] = 0 // a quarter regressed
		}
	}
	d, low, high, p := PairedDiff(before, after)
	if d != -0.25 || !(high < 0) || low > d || p > 0.01 {
		t.Errorf("a quarter regressed: %v [%v, %v] p=%v", d, low, high, p)
	}
	after2 := append([]float64(nil), before...)
	after2[3], before[7] = 0, 0
	d, low, high, p = PairedDiff(before, after2)
	if d != 0 || !(low < 0 && high > 0) || p < 0.5 {
		t.Errorf("one up, one down: %v [%v, %v] p=%v", d, low, high, p)
	}
	if d, low, high, p := PairedDiff([]float64{0.5, 0.5}, []float64{1, 1}); d != 0.5 || low != 0.5 || high != 0.5 || p != 0 {
		t.Errorf("every pair up alike: %v [%v, %v] p=%v", d, low, high, p)
	}
}

func mkCase(variant string, row, rep int, inputs string, value float64, out string) Case {
	return Case{Variant: variant, Row: row, Repeat: rep, Inputs: json.RawMessage(inputs), Outputs: json.RawMessage(out), RunID: fmt.Sprintf("run-%s-%d-%d", variant, row, rep),
		Scores: []Score{{Name: "exact", Value: value, Pass: value == 1}}}
}

// TestCompare: cases are paired by variant and inputs (a row that moved
// is the same case), repetitions averaged; the changed cases come worst
// first with both outputs; a gate's max_regression fails on a drop larger
// than it and holds otherwise.
func TestCompare(t *testing.T) {
	c := NewComparer()
	for row := range 20 {
		in := fmt.Sprintf(`{"ticket": "t%d"}`, row)
		c.AddBase(mkCase("v", row, 0, in, 1, `{"category":"ok"}`))
		c.AddBase(mkCase("v", row, 1, in, 1, `{"category":"ok"}`))
		c.AddBase(mkCase("only_base", row, 0, in, 1, `{}`))
	}
	// Now the dataset has a new first row: the rows moved by one.
	c.AddHead(mkCase("v", 0, 0, `{"ticket":"new"}`, 1, `{}`))
	for row := range 20 {
		in := fmt.Sprintf(`{"ticket":"t%d"}`, row)
		v0, v1 := 1.0, 1.0
		switch row {
		case 3:
			v0, v1 = 0, 0 // regressed on both repetitions: -1
		case 5:
			v1 = 0 // regressed on one: -0.5
		}
		c.AddHead(mkCase("v", row+1, 1, in, v1, `{"category":"bad"}`))
		c.AddHead(mkCase("v", row+1, 0, in, v0, `{"category":"bad"}`))
	}
	cmp := c.Compare("A", "B")
	if len(cmp.Scores) != 1 {
		t.Fatalf("scores %+v", cmp.Scores)
	}
	d := cmp.Scores[0]
	if d.Variant != "v" || d.Paired != 20 || math.Abs(d.Diff+1.5/20) > 1e-12 || d.BaseMean != 1 || math.Abs(d.HeadMean-19.5/21) > 1e-12 {
		t.Errorf("diff %+v", d)
	}
	if cmp.Regressed != 2 || cmp.Improved != 0 || len(cmp.Changed) != 2 {
		t.Fatalf("changed %+v", cmp.Changed)
	}
	w := cmp.Changed[0]
	if w.Row != 4 || w.Delta != -1 || string(w.BaseOutputs) != `{"category":"ok"}` || string(w.HeadOutputs) != `{"category":"bad"}` || w.BaseRun != "run-v-3-0" || cmp.Changed[1].Row != 6 || cmp.Changed[1].Delta != -0.5 {
		t.Errorf("worst first: %+v", cmp.Changed)
	}
	loose, tight := 0.1, 0.05
	if g := cmp.Gate(Gate{Score: "exact", MaxRegression: &loose, Held: true}); !g.Held {
		t.Errorf("a drop of 0.075 failed max_regression 0.1: %s", g.Reason)
	}
	g := cmp.Gate(Gate{Score: "exact", MaxRegression: &tight, Held: true})
	if g.Held || g.Reason == "" {
		t.Errorf("a drop of 0.075 held max_regression 0.05")
	}
	if g := cmp.Gate(Gate{Score: "exact", Variant: "other", MaxRegression: &tight, Held: true}); !g.Held {
		t.Errorf("a variant the comparison lacks failed: %s", g.Reason)
	}
	// The same cases in another order compare alike.
	c2 := NewComparer()
	for row := 19; row >= 0; row-- {
		in := fmt.Sprintf(`{"ticket":"t%d"}`, row)
		c2.AddHead(mkCase("v", row+1, 0, in, map[bool]float64{true: 0, false: 1}[row == 3], `{}`))
		c2.AddBase(mkCase("v", row, 0, in, 1, `{}`))
	}
	if d2 := c2.Compare("A", "B").Scores[0]; d2.Diff != -0.05 || d2.Low > d2.Diff || d2.High < d2.Diff {
		t.Errorf("reversed order: %+v", d2)
	}
}

// TestComparerKeepsLargeInputsCut: a case's inputs of 1 MiB (a large
// dataset row) are kept cut to MaxKeptOutput, its key included, and the
// case still pairs with its baseline.
func TestComparerKeepsLargeInputsCut(t *testing.T) {
	c := NewComparer()
	in := fmt.Sprintf(`{"ticket": %q}`, strings.Repeat("x", 1<<20))
	c.AddBase(mkCase("v", 0, 0, in, 1, `{}`))
	c.AddHead(mkCase("v", 0, 0, in, 0, `{}`))
	for side := range c.sides {
		for key, p := range c.sides[side] {
			if len(key) > 100 || len(p.inputs) > MaxKeptOutput+10 {
				t.Errorf("side %d keeps a key of %d bytes and inputs of %d", side, len(key), len(p.inputs))
			}
		}
	}
	if cmp := c.Compare("A", "B"); len(cmp.Scores) != 1 || cmp.Scores[0].Paired != 1 || cmp.Regressed != 1 {
		t.Errorf("comparison %+v", cmp)
	}
}
