package evaluate

import (
	"fmt"

	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime/evaluate/result"
)

// Gates gives the verdicts of an eval's gates on its variants' summaries:
// a gate holds when, for its variant or for every variant that ran, the
// score's mean is at least min, and, when there is a comparison with a
// baseline, has not dropped by more than max_regression over the cases
// both have (result.Comparison.Gate). Without a baseline max_regression
// is not checked (the verdict says so); a variant that did not run
// (--variant, --only) is not judged.
func Gates(def *lang.EvalDef, variants []result.Variant, cmp *result.Comparison) []result.Gate {
	out := make([]result.Gate, 0, len(def.Gates))
	for _, g := range def.Gates {
		v := result.Gate{Score: g.Score, Variant: g.Variant, Min: g.Min, MaxRegression: g.MaxRegression, Held: true}
		judged := 0
		for _, vr := range variants {
			if g.Variant != "" && vr.Name != g.Variant {
				continue
			}
			st, ok := vr.Scores[g.Score]
			if !ok {
				continue
			}
			judged++
			if g.Min != nil && st.Mean < *g.Min {
				v.Held = false
				v.Reason = appendReason(v.Reason, fmt.Sprintf("%s: mean %.3f is below the minimum %g", vr.Name, st.Mean, *g.Min))
			}
		}
		if cmp != nil && judged > 0 {
			v = cmp.Gate(v)
		}
		switch {
		case judged == 0:
			v.Reason = "no case of the gate's variant ran"
		case v.Held && g.MaxRegression != nil && cmp == nil && g.Min == nil:
			v.Reason = "no baseline to compare with"
		}
		out = append(out, v)
	}
	return out
}

func appendReason(reason, more string) string {
	if reason == "" {
		return more
	}
	return reason + "; " + more
}
