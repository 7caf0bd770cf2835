package compare

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// exactLimit is the largest number of arrangements C(n+m, n) for which the
// Mann-Whitney p-value is computed exactly by enumeration.
const exactLimit = 200_000

// mannWhitney returns the two-sided p-value of the Mann-Whitney U test of x
// against y.
//
// Both samples are ranked together with midranks for ties. W, the sum of
// x's ranks, is compared with its distribution under the null hypothesis
// that every arrangement of the pooled ranks into groups of sizes n and m
// is equally likely: exactly, by enumerating the C(n+m, n) arrangements
// (ties included, since the midranks are what is permuted), or for large
// samples by the normal approximation
//
//	z = (|W − n(N+1)/2| − ½) / σ,  σ² = nm/12 · (N+1 − Σ(t³−t)/(N(N−1)))
//
// with t the sizes of the tie groups and ½ the continuity correction. The
// p-value is P(|W − E W| ≥ |w − E W|). It is 1 when either sample is empty
// or every value is tied.
func mannWhitney(x, y []float64) float64 { return mannWhitneyLimit(x, y, exactLimit) }

// mannWhitneyLimit is mannWhitney enumerating up to limit arrangements.
func mannWhitneyLimit(x, y []float64, limit float64) float64 {
	n, m := len(x), len(y)
	if n == 0 || m == 0 {
		return 1
	}
	N := n + m
	type obs struct {
		v float64
		x bool
	}
	all := make([]obs, 0, N)
	for _, v := range x {
		all = append(all, obs{v, true})
	}
	for _, v := range y {
		all = append(all, obs{v, false})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].v < all[j].v })
	ranks := make([]float64, N)
	var tieSum float64
	for i := 0; i < N; {
		j := i
		for j+1 < N && all[j+1].v == all[i].v {
			j++
		}
		mid := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			ranks[k] = mid
		}
		t := float64(j - i + 1)
		tieSum += t*t*t - t
		i = j + 1
	}
	var w float64
	for i, o := range all {
		if o.x {
			w += ranks[i]
		}
	}
	mean := float64(n) * float64(N+1) / 2
	dev := math.Abs(w - mean)
	if binom(N, n) <= limit {
		return exactTail(ranks, n, mean, dev)
	}
	variance := float64(n) * float64(m) / 12 * (float64(N+1) - tieSum/(float64(N)*float64(N-1)))
	if variance <= 0 {
		return 1
	}
	z := (dev - 0.5) / math.Sqrt(variance)
	if z <= 0 {
		return 1
	}
	return math.Min(1, math.Erfc(z/math.Sqrt2))
}

// exactTail enumerates every choice of n of the ranks and returns the share
// whose sum deviates from mean by at least dev.
func exactTail(ranks []float64, n int, mean, dev float64) float64 {
	const eps = 1e-9
	var hit, total float64
	var rec func(start, left int, sum float64)
	rec = func(start, left int, sum float64) {
		if left == 0 {
			total++
			if math.Abs(sum-mean) >= dev-eps {
				hit++
			}
			return
		}
		for i := start; i <= len(ranks)-left; i++ {
			rec(i+1, left-1, sum+ranks[i])
		}
	}
	rec(0, n, 0)
	return hit / total
}

// binom returns C(n, k) as a float, saturating far above exactLimit.
func binom(n, k int) float64 {
	if k < 0 || k > n {
		return 0
	}
	if k > n-k {
		k = n - k
	}
	c := 1.0
	for i := 1; i <= k; i++ {
		c = c * float64(n-k+i) / float64(i)
		if c > 1e12 {
			return c
		}
	}
	return math.Round(c)
}

// minPValue is the smallest two-sided p-value the exact test can give with
// n and m untied observations: both extreme arrangements, 2/C(n+m, n).
func minPValue(n, m int) float64 {
	if n == 0 || m == 0 {
		return 1
	}
	return math.Min(1, 2/binom(n+m, n))
}

// trialsNeeded is the smallest equal number of trials per side whose
// minimum p-value is below level.
func trialsNeeded(level float64) int {
	for n := 2; n < 100; n++ {
		if minPValue(n, n) < level {
			return n
		}
	}
	return 100
}

// holm returns Holm's step-down adjusted p-values, in the input order:
// sorted ascending, p(i) is multiplied by k−i+1 (i from 1), capped at 1 and
// made monotone, so that rejecting where the adjusted value is below α
// controls the family-wise error rate at α across the k tests.
func holm(p []float64) []float64 {
	k := len(p)
	idx := make([]int, k)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return p[idx[a]] < p[idx[b]] })
	adj := make([]float64, k)
	running := 0.0
	for rank, i := range idx {
		v := math.Min(1, float64(k-rank)*p[i])
		running = math.Max(running, v)
		adj[i] = running
	}
	return adj
}

// equivConf is the level of the interval that decides `unchanged` when
// tests run at confidence conf: 1−2α, the two one-sided tests at α (TOST).
func equivConf(conf float64) float64 { return math.Max(0, 2*conf-1) }

// equivalenceCI is the interval Decide's equivalence test uses: the
// metric's (1−2α) interval, or its only one when it has no test.
func (m *Metric) equivalenceCI() [2]float64 {
	if m.EquivCIPct != nil {
		return *m.EquivCIPct
	}
	return m.CIPct
}

// evidence is what Decide decides m from, with p-value p (NaN without a
// test) at level alpha.
func (m *Metric) evidence(p, alpha float64) Evidence {
	return Evidence{DeltaPct: m.DeltaPct, EquivCIPct: m.equivalenceCI(), ThresholdPct: m.ThresholdPct,
		EquivalencePct: m.EquivalencePct, BetterIs: m.BetterIs, P: p, Alpha: alpha}
}

// percentileInterval returns the (1−conf)/2 and (1+conf)/2 quantiles of
// reps (sorted in place), interpolating between order statistics.
func percentileInterval(reps []float64, conf float64) [2]float64 {
	if len(reps) == 0 {
		return [2]float64{math.NaN(), math.NaN()}
	}
	sort.Float64s(reps)
	q := func(p float64) float64 {
		pos := p * float64(len(reps)-1)
		lo := int(math.Floor(pos))
		hi := int(math.Ceil(pos))
		frac := pos - float64(lo)
		return reps[lo]*(1-frac) + reps[hi]*frac
	}
	return [2]float64{q((1 - conf) / 2), q((1 + conf) / 2)}
}

// tTest is a t-test of a change on the log scale: its two-sided p-value,
// the interval of the change 100·(e^d − 1) in percent, and the point
// values of each side (the geometric means; 0 where the test has none).
type tTest struct {
	p          float64
	ci         [2]float64
	base, cand float64
}

// welchLog compares two samples of positive values on the log scale with
// Welch's t-test: d = mean(ln y) − mean(ln x), se² = s²x/n + s²y/m, with
// the Welch–Satterthwaite degrees of freedom. It returns the two-sided
// p-value of d = 0 and the conf-level interval of the relative change
// 100·(e^d − 1) in percent (a tTest without point values). A log scale makes a ratio's noise symmetric
// (a 5% capacity wobble is ±5% whatever the capacity). ok is false with
// fewer than two values a side or a non-positive value. When both samples
// have zero spread, the interval is the point and p is 0 or 1.
//
// extra is a variance (log scale) known from outside the samples, added to
// se² with no degrees of freedom of its own: the run-to-run noise a
// one-run baseline cannot show (Settings.runVar).
func welchLog(x, y []float64, conf, extra float64) (tTest, bool) {
	return welchLogDF(x, y, conf, extra, math.Inf(1))
}

// welchLogDF is welchLog with extra estimated on extraDF degrees of
// freedom (a variance pooled from the suite's other scenarios), which
// Satterthwaite's rule folds into the test's.
func welchLogDF(x, y []float64, conf, extra, extraDF float64) (tTest, bool) {
	lx, okx := logs(x)
	ly, oky := logs(y)
	if !okx || !oky || len(lx) < 2 || len(ly) < 2 {
		return tTest{p: 1, ci: [2]float64{math.NaN(), math.NaN()}}, false
	}
	mx, vx := meanVar(lx)
	my, vy := meanVar(ly)
	n, m := float64(len(lx)), float64(len(ly))
	d := my - mx
	se2 := vx/n + vy/m
	if se2+extra <= 0 {
		pt := 100 * (math.Exp(d) - 1)
		if d == 0 {
			return tTest{p: 1, ci: [2]float64{pt, pt}}, true
		}
		return tTest{p: 0, ci: [2]float64{pt, pt}}, true
	}
	df := n + m - 2
	if se2 > 0 {
		// Welch–Satterthwaite; extra adds a term only when estimated.
		df = (se2 + extra) * (se2 + extra) / ((vx/n)*(vx/n)/(n-1) + (vy/m)*(vy/m)/(m-1) + extra*extra/extraDF)
	}
	se := math.Sqrt(se2 + extra)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}
	p := 2 * t.Survival(math.Abs(d)/se)
	q := t.Quantile((1 + conf) / 2)
	return tTest{p: math.Min(1, p), ci: [2]float64{100 * (math.Exp(d-q*se) - 1), 100 * (math.Exp(d+q*se) - 1)}}, true
}

// processTest compares per-process values (a quantile of each target
// process's merged trials) of a baseline x and a candidate y on the log
// scale with Student's two-sample t-test with pooled variance:
//
//	d = mean(ln y) − mean(ln x),  s² = (Σ(ln x − mean)² + Σ(ln y − mean)²) / (n + m − 2)
//	se = s·√(1/n + 1/m),  t = d/se with n + m − 2 degrees of freedom
//
// The variance is the between-process variance, pooled over both sides:
// under the null hypothesis both sides run the same code, so their
// processes scatter alike, and a side measured in few processes (a
// candidate with two restarts) borrows the baseline's. The degrees of
// freedom are honest: one per process beyond the two means, however many
// trials each process ran. It returns the two-sided p-value, the
// conf-level interval of 100·(e^d − 1) in percent, and the geometric
// means of x and y (a tTest). ok is false with fewer than three processes in all
// (no variance to pool) or a non-positive value.
//
// extra is a variance (log scale) known from outside the samples, added to
// se² (the run-to-run noise a one-run baseline cannot show,
// Settings.runVar); the degrees of freedom grow as Satterthwaite's rule
// gives for a component known exactly.
func processTest(x, y []float64, conf, extra float64) (tTest, bool) {
	return processTestDF(x, y, conf, extra, math.Inf(1))
}

// processTestDF is processTest with extra estimated on extraDF degrees of
// freedom (see welchLogDF).
func processTestDF(x, y []float64, conf, extra, extraDF float64) (tTest, bool) {
	lx, okx := logs(x)
	ly, oky := logs(y)
	if !okx || !oky || len(lx) < 1 || len(ly) < 1 || len(lx)+len(ly) < 3 {
		return tTest{p: 1, ci: [2]float64{math.NaN(), math.NaN()}}, false
	}
	n, m := float64(len(lx)), float64(len(ly))
	mx, my := mean(lx), mean(ly)
	var ss float64
	for _, v := range lx {
		ss += (v - mx) * (v - mx)
	}
	for _, v := range ly {
		ss += (v - my) * (v - my)
	}
	df := n + m - 2
	d := my - mx
	gx, gy := math.Exp(mx), math.Exp(my)
	v := ss / df * (1/n + 1/m)
	if v > 0 && extra > 0 {
		df = (v + extra) * (v + extra) / (v*v/df + extra*extra/extraDF)
	}
	se := math.Sqrt(v + extra)
	if se <= 0 {
		pt := 100 * (math.Exp(d) - 1)
		if d == 0 {
			return tTest{p: 1, ci: [2]float64{pt, pt}, base: gx, cand: gy}, true
		}
		return tTest{p: 0, ci: [2]float64{pt, pt}, base: gx, cand: gy}, true
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}
	p := 2 * t.Survival(math.Abs(d)/se)
	q := t.Quantile((1 + conf) / 2)
	return tTest{p: math.Min(1, p), ci: [2]float64{100 * (math.Exp(d-q*se) - 1), 100 * (math.Exp(d+q*se) - 1)}, base: gx, cand: gy}, true
}

func logs(v []float64) ([]float64, bool) {
	out := make([]float64, len(v))
	for i, x := range v {
		if !(x > 0) || math.IsInf(x, 0) {
			return nil, false
		}
		out[i] = math.Log(x)
	}
	return out, true
}

// meanVar is the mean and the unbiased variance.
func meanVar(v []float64) (m, s2 float64) {
	for _, x := range v {
		m += x
	}
	m /= float64(len(v))
	for _, x := range v {
		s2 += (x - m) * (x - m)
	}
	return m, s2 / float64(len(v)-1)
}

// trialsFor estimates how many values per side would let an interval of
// half-width halfWidth (from n values a side) clear a margin: intervals
// narrow as 1/√n, so n·(halfWidth/margin)². It is at least n+1 and at most
// 100.
func trialsFor(n int, halfWidth, margin float64) int {
	if margin <= 0 || math.IsNaN(halfWidth) {
		return 100
	}
	need := int(math.Ceil(float64(n) * (halfWidth / margin) * (halfWidth / margin)))
	return min(max(need, n+1), 100)
}
