package compare

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// MethodPaired: per pair of an interleaved run (pairs merged until each
// side holds enough requests for the quantile) the log ratio of the metric
// from each side's merged histogram, and Student's paired t-test and
// interval of the mean log ratio (same-runner A/B, `gate --ab`).
const MethodPaired = "paired-blocks-t"

// pairedDiffs is one metric of an interleaved A/B run over its units
// (pairedUnits): each unit's value on each side (base, head) and their
// difference d, a log ratio, or, when absolute, head − base in points (an
// error rate, since a base of zero errors has no ratio); pairs is the
// number of pairs behind the units.
type pairedDiffs struct {
	d, base, head []float64
	// order is each unit's order covariate (pairedUnit.order), nil when
	// the order is not known.
	order    []float64
	absolute bool
	pairs    int
}

// pairedBlocks compares a metric of an interleaved A/B run over its
// units (MethodPaired): the change is exp(mean d) − 1 (100·mean d points
// when absolute) with Student's t interval mean ± t(1 − α/2, n−1) · s/√n,
// and the p-value is the paired t-test's of mean d = 0; the point values
// are the geometric means of each side's unit values (their means when
// absolute). When the order each unit ran in is known, the change and its
// test come from orderAdjustedT instead. It applies to paired units only,
// and to one or more of them.
type pairedBlocks struct{}

func (pairedBlocks) method() string { return MethodPaired }

func (pairedBlocks) estimate(in latencyInput) (Estimate, bool) {
	u := in.paired
	if u == nil || len(u.d) == 0 {
		return Estimate{}, false
	}
	n := len(u.d)
	stat := func(x float64) float64 { return 100 * (math.Exp(x) - 1) }
	base, cand := GeoMean(u.base), GeoMean(u.head)
	if u.absolute {
		stat = func(x float64) float64 { return 100 * x }
		base, cand = mean(u.base), mean(u.head)
	}
	t, eq := pairedT(u.d, in.conf), pairedT(u.d, in.eqConf)
	if adj, ok := orderAdjustedT(u.d, u.order, in.conf); ok {
		t = adj
		eq, _ = orderAdjustedT(u.d, u.order, in.eqConf)
	}
	return Estimate{Base: base, Cand: cand, DeltaPct: stat(t.mid),
		CIPct: [2]float64{stat(t.lo), stat(t.hi)}, EquivCIPct: &[2]float64{stat(eq.lo), stat(eq.hi)}, P: t.p,
		NBase: n, NCand: n, NBaseTrials: u.pairs, NCandTrials: u.pairs}, true
}

// meanTest is Student's one-sample t-test of a mean: the two-sided
// p-value of mean 0, and the mean mid with its interval [lo, hi].
type meanTest struct {
	p, lo, mid, hi float64
}

// pairedT is Student's one-sample t-test of mean(d) = 0 at conf. With no
// spread the interval is the point, and p is 1 at zero and 0 elsewhere.
func pairedT(d []float64, conf float64) meanTest {
	mid, v := meanVar(d)
	n := float64(len(d))
	return meanT(mid, math.Sqrt(v/n), n-1, conf)
}

// meanT is Student's test of an estimate mid with standard error se on
// df degrees of freedom: the two-sided p-value of 0 and the interval at
// conf. With no spread the interval is the point, and p is 1 at zero and
// 0 elsewhere.
func meanT(mid, se, df, conf float64) meanTest {
	if se == 0 || math.IsNaN(se) {
		if mid == 0 {
			return meanTest{1, mid, mid, mid}
		}
		return meanTest{0, mid, mid, mid}
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}
	q := t.Quantile((1 + conf) / 2)
	return meanTest{math.Min(1, 2*t.Survival(math.Abs(mid)/se)), mid - q*se, mid, mid + q*se}
}

// MinOrderAdjustedUnits is the fewest units with which the paired test
// takes the order effect out (orderAdjustedT): it costs a degree of
// freedom, and with fewer units the t quantile it adds outweighs it.
const MinOrderAdjustedUnits = 4

// orderAdjustedT is the paired test with the order each unit ran in as a
// covariate: d = δ + θ·s + e, s being the unit's order (+1 head first, −1
// base first, between for a unit of both), fitted by least squares; δ,
// the change at no order, is tested on n − 2 degrees of freedom. ABBA
// alternates s, so a constant order effect θ (the side measured first
// slower, a process's age or warm-up) adds +θ and −θ to the pairs: it
// leaves the plain mean unbiased but enters its variance, where it makes
// an A/A run undecidable (TestSimulatedOrderEffect). ok is false with
// fewer than MinOrderAdjustedUnits units or no spread of s.
func orderAdjustedT(d, s []float64, conf float64) (meanTest, bool) {
	n := len(d)
	if n < MinOrderAdjustedUnits || len(s) != n {
		return meanTest{}, false
	}
	var ms, md float64
	for i := range d {
		ms += s[i]
		md += d[i]
	}
	ms /= float64(n)
	md /= float64(n)
	var sxx, sxy float64
	for i := range d {
		sxx += (s[i] - ms) * (s[i] - ms)
		sxy += (s[i] - ms) * (d[i] - md)
	}
	if !(sxx > 1e-12) {
		return meanTest{}, false
	}
	slope := sxy / sxx
	mid := md - slope*ms
	var rss float64
	for i := range d {
		r := d[i] - mid - slope*s[i]
		rss += r * r
	}
	df := float64(n - 2)
	return meanT(mid, math.Sqrt(rss/df*(1/float64(n)+ms*ms/sxx)), df, conf), true
}

// orderIfKnown is the units' order covariates when every pair's order is
// known, else nil.
func orderIfKnown(order []float64, known bool) []float64 {
	if !known {
		return nil
	}
	return order
}
