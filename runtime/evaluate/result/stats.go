package result

import (
	"math"
	"math/rand/v2"
	"slices"
)

// The statistics of an evaluation: a mean's 95% confidence interval by the
// percentile bootstrap, resampled with a fixed seed from the values in
// sorted order, so that the same cases give the same interval whatever
// order they finished in.

// Resamples is how many times a bootstrap resamples its values.
const Resamples = 2000

// bootstrapSeed seeds every bootstrap: an interval depends on the values
// only.
const bootstrapSeed = 0x5eed_e7a1

// MeanCI returns the mean of xs and its 95% confidence interval (the
// percentile bootstrap of Resamples resamples). One value, or none, has
// the interval of its mean alone. xs is not modified.
func MeanCI(xs []float64) (mean, low, high float64) {
	if len(xs) == 0 {
		return 0, 0, 0
	}
	sorted := slices.Clone(xs)
	slices.Sort(sorted)
	mean = meanOf(sorted)
	if len(sorted) == 1 || sorted[0] == sorted[len(sorted)-1] {
		return mean, mean, mean
	}
	means := bootstrap(sorted, nil)
	return mean, quantile(means, 0.025), quantile(means, 0.975)
}

// bootstrap returns the Resamples means of resamples of xs (with
// replacement), sorted. With ys of the same length (paired values), each
// resample is of the differences ys[i]-xs[i].
func bootstrap(xs, ys []float64) []float64 {
	r := rand.New(rand.NewPCG(bootstrapSeed, uint64(len(xs))))
	means := make([]float64, Resamples)
	n := len(xs)
	vals := xs
	if ys != nil {
		vals = make([]float64, n)
		for i := range vals {
			vals[i] = ys[i] - xs[i]
		}
	}
	// Two indices from each 64 random bits, each by multiply-shift of 32
	// (a bias of n/2³² at most, nothing beside the resampling's).
	un := uint64(n)
	for b := range means {
		sum := 0.0
		for k := 0; k < n; k += 2 {
			x := r.Uint64()
			sum += vals[(x&0xffffffff)*un>>32]
			if k+1 < n {
				sum += vals[(x>>32)*un>>32]
			}
		}
		means[b] = sum / float64(n)
	}
	slices.Sort(means)
	return means
}

func meanOf(xs []float64) float64 {
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// quantile is the q-quantile of sorted values (linear between the two
// nearest).
func quantile(sorted []float64, q float64) float64 {
	pos := q * float64(len(sorted)-1)
	i := int(math.Floor(pos))
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	f := pos - float64(i)
	return sorted[i]*(1-f) + sorted[i+1]*f
}

// Stats returns the variants' summaries as Variants does, each score's
// confidence interval filled in (MeanCI of its values).
func (a *Aggregator) Stats() []Variant {
	out := a.Variants()
	for _, v := range out {
		for name, st := range v.Scores {
			st.Mean, st.Low, st.High = MeanCI(a.Values(v.Name, name))
			v.Scores[name] = st
		}
	}
	return out
}

// PairedDiff is the paired bootstrap of the differences after[i] -
// before[i] (the same cases, scored twice): their mean, its 95%
// confidence interval, and the two-sided p-value of the difference being
// 0 (twice the share of resampled means on the far side of 0, at most 1).
// The difference is more than noise when the interval leaves out 0.
func PairedDiff(before, after []float64) (mean, low, high, p float64) {
	n := len(before)
	if n == 0 || len(after) != n {
		return 0, 0, 0, 1
	}
	// Sorted by pair, so that the order the cases came in does not count.
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(i, j int) int {
		if c := cmpFloat(before[i], before[j]); c != 0 {
			return c
		}
		return cmpFloat(after[i], after[j])
	})
	xs, ys := make([]float64, n), make([]float64, n)
	same := true
	for k, i := range idx {
		xs[k], ys[k] = before[i], after[i]
		mean += ys[k] - xs[k]
		if ys[k]-xs[k] != ys[0]-xs[0] {
			same = false
		}
	}
	mean /= float64(n)
	if same { // every pair differs alike: no spread to resample
		p = 1
		if mean != 0 {
			p = 0
		}
		return mean, mean, mean, p
	}
	means := bootstrap(xs, ys)
	below, above := 0, 0
	for _, m := range means {
		if m <= 0 {
			below++
		}
		if m >= 0 {
			above++
		}
	}
	p = min(1, 2*float64(min(below, above))/float64(len(means)))
	return mean, quantile(means, 0.025), quantile(means, 0.975), p
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
