// Command p99budget reads the two sides of an interleaved A/B scenario
// (gate --ab's results: the base side's file and the head side's, trial i
// of one paired with trial i of the other) and says how much of the
// pairs' P99 spread is the sampling of each trial's own requests, and how
// many requests a side a paired test needs to call P99 unchanged within a
// threshold.
//
// It answers one question behind issue 44's fixed-rate A/A target: is a
// P99 that will not settle within ±5% limited by the runner (the pairs
// spread more than their requests explain) or by the requests (a trial's
// P99 is the third slowest of 300, and its own sampling is the spread)?
// And a second: would another reading of a trial's tail spread less over
// the same pairs (a smoother quantile estimator, the trial cut into
// seconds, a lower quantile, a trimmed mean over the pairs)?
//
// Usage:
//
//	go run ./bench/p99budget [-threshold 0.05] [-resamples 1000] BASE.json HEAD.json
package main

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"sort"

	"github.com/HdrHistogram/hdrhistogram-go"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/perfgate/perfgate/result"
)

func main() {
	thr := flag.Float64("threshold", 0.05, "the P99 threshold, a fraction")
	resamples := flag.Int("resamples", 1000, "bootstrap resamples of each trial's requests")
	flag.Parse()
	if flag.NArg() != 2 {
		fmt.Fprintln(os.Stderr, "usage: p99budget [-threshold 0.05] BASE.json HEAD.json")
		os.Exit(2)
	}
	base, err := result.ReadFile(flag.Arg(0))
	if err != nil {
		fail(err)
	}
	head, err := result.ReadFile(flag.Arg(1))
	if err != nil {
		fail(err)
	}
	n := min(len(base.Trials), len(head.Trials))
	if n < 3 {
		fail(fmt.Errorf("%d pairs: want at least 3", n))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var ratios, samp []float64
	var requests []float64
	for i := range n {
		b, bv, bn, err := trialP99(base.Trials[i], *resamples, rng)
		if err != nil {
			fail(fmt.Errorf("base trial %d: %w", i+1, err))
		}
		h, hv, hn, err := trialP99(head.Trials[i], *resamples, rng)
		if err != nil {
			fail(fmt.Errorf("head trial %d: %w", i+1, err))
		}
		ratios = append(ratios, math.Log(h/b))
		samp = append(samp, bv+hv)
		requests = append(requests, float64(bn+hn)/2)
	}
	sd := stat.StdDev(ratios, nil)
	sampSD := math.Sqrt(stat.Mean(samp, nil))
	perUnit := stat.Mean(requests, nil)
	fmt.Printf("pairs %d, requests a trial %.0f (median %.0f)\n", n, perUnit, median(requests))
	fmt.Printf("P99 log ratio a pair: mean %+.4f, SD %.4f observed; %.4f from each trial's own requests (bootstrap, %d resamples): sampling explains %.0f%% of the variance\n",
		stat.Mean(ratios, nil), sd, sampSD, *resamples, 100*sampSD*sampSD/(sd*sd))
	// The paired test calls P99 unchanged when its 90% interval (two
	// one-sided tests at 5%) lies within ±ln(1+thr); with a true change of
	// 0 that needs t·SD/√k < ln(1+thr). The pairs needed, from the SD
	// observed, and the requests a side they hold.
	margin := math.Log1p(*thr)
	k := 3
	for ; k < 100000; k++ {
		t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(k - 1)}.Quantile(0.95)
		if t*sd/math.Sqrt(float64(k)) < margin {
			break
		}
	}
	fmt.Printf("unchanged within ±%.0f%% with a true change of 0 needs about %d pairs at this spread: %.0f requests a side (the best case: a 90%% interval, no looks spent)\n",
		100**thr, k, float64(k)*perUnit)
	if err := estimators(base.Trials[:n], head.Trials[:n]); err != nil {
		fail(err)
	}
}

// estimator reads one number from a trial's requests (sorted, in the
// histogram's unit) and its per-second timeline; 0 when it cannot.
type estimator struct {
	name string
	read func(vals []float64, ps *result.PerSecond) float64
}

// estimators prints, for each reading of a trial's tail, the pairs' log
// ratio's SD, the standard error of its mean, and the standard error of
// its 20%-trimmed mean (Yuen's), which discounts the pair that one stall
// moved.
func estimators(base, head []result.Trial) error {
	es := []estimator{
		{"P99 (the gate's: the histogram's value at 99%)", func(v []float64, _ *result.PerSecond) float64 { return orderStat(v, 0.99) }},
		{"Harrell-Davis P99 (a weighted mean of the order statistics)", func(v []float64, _ *result.PerSecond) float64 { return harrellDavis(v, 0.99) }},
		{"geometric mean of the trial's per-second P99s", perSecondP99},
		{"P98", func(v []float64, _ *result.PerSecond) float64 { return orderStat(v, 0.98) }},
		{"P95", func(v []float64, _ *result.PerSecond) float64 { return orderStat(v, 0.95) }},
		{"P50", func(v []float64, _ *result.PerSecond) float64 { return orderStat(v, 0.50) }},
	}
	vals := func(t result.Trial) ([]float64, error) {
		_, raw, err := trialValues(t)
		v := make([]float64, len(raw))
		for i, x := range raw {
			v[i] = float64(x)
		}
		return v, err
	}
	bv, hv := make([][]float64, len(base)), make([][]float64, len(head))
	for i := range base {
		var err error
		if bv[i], err = vals(base[i]); err != nil {
			return fmt.Errorf("base trial %d: %w", i+1, err)
		}
		if hv[i], err = vals(head[i]); err != nil {
			return fmt.Errorf("head trial %d: %w", i+1, err)
		}
	}
	fmt.Println("the same pairs, other readings of a trial's tail (log ratio a pair: SD; standard error of the mean; of the 20 percent trimmed mean):")
	for _, e := range es {
		var d []float64
		for i := range base {
			b, h := e.read(bv[i], base[i].PerSecond), e.read(hv[i], head[i].PerSecond)
			if b > 0 && h > 0 {
				d = append(d, math.Log(h/b))
			}
		}
		if len(d) < 5 {
			fmt.Printf("  %s: %d pairs readable, too few\n", e.name, len(d))
			continue
		}
		sd := stat.StdDev(d, nil)
		fmt.Printf("  %-62s SD %.4f  SE %.4f  trimmed SE %.4f\n", e.name+":", sd, sd/math.Sqrt(float64(len(d))), trimmedSE(d, 0.2))
	}
	return nil
}

// orderStat is the sample quantile q of sorted v as the HDR histogram
// reads it: the value at or below which a fraction q of v lies.
func orderStat(v []float64, q float64) float64 {
	i := int(math.Ceil(q*float64(len(v)))) - 1
	return v[max(i, 0)]
}

// harrellDavis is the Harrell-Davis estimate of quantile q of sorted v:
// every order statistic weighted by a Beta(q(n+1), (1−q)(n+1)) density's
// mass over its slot.
func harrellDavis(v []float64, q float64) float64 {
	n := float64(len(v))
	b := distuv.Beta{Alpha: q * (n + 1), Beta: (1 - q) * (n + 1)}
	s, prev := 0.0, 0.0
	for i := range v {
		c := b.CDF(float64(i+1) / n)
		s += (c - prev) * v[i]
		prev = c
	}
	return s
}

// perSecondP99 is the geometric mean of a trial's per-second P99s; 0
// when the trial has no timeline.
func perSecondP99(_ []float64, ps *result.PerSecond) float64 {
	if ps == nil || len(ps.P99Ms) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range ps.P99Ms {
		if x <= 0 {
			return 0
		}
		s += math.Log(x)
	}
	return math.Exp(s / float64(len(ps.P99Ms)))
}

// trimmedSE is the standard error of the g-trimmed mean of x (Yuen): the
// winsorized SD over (1 − 2g)·√n.
func trimmedSE(x []float64, g float64) float64 {
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	n := len(s)
	k := int(g * float64(n))
	for i := range k {
		s[i], s[n-1-i] = s[k], s[n-1-k]
	}
	return stat.StdDev(s, nil) / ((1 - 2*g) * math.Sqrt(float64(n)))
}

// trialP99 is a trial's P99 (ms, as the engine reads it: the HDR
// histogram's value at the 99th percentile), the bootstrap variance of
// its logarithm over resamples of the trial's own requests, and the
// requests.
func trialP99(t result.Trial, resamples int, rng *rand.Rand) (p99, logVar float64, n int, err error) {
	h, vals, err := trialValues(t)
	if err != nil {
		return 0, 0, 0, err
	}
	if len(vals) < 100 {
		return 0, 0, 0, fmt.Errorf("%d requests: want at least 100", len(vals))
	}
	p99 = float64(h.ValueAtQuantile(99))
	logs := make([]float64, resamples)
	for r := range logs {
		x := result.NewHistogram()
		for range vals {
			if err := x.RecordValue(vals[rng.IntN(len(vals))]); err != nil {
				return 0, 0, 0, err
			}
		}
		logs[r] = math.Log(float64(x.ValueAtQuantile(99)))
	}
	return p99, stat.Variance(logs, nil), len(vals), nil
}

// trialValues is a trial's histogram and its requests' latencies in
// ascending order, each as its bucket's upper end.
func trialValues(t result.Trial) (*hdrhistogram.Histogram, []int64, error) {
	h, err := result.DecodeHistogram(t.Histogram)
	if err != nil {
		return nil, nil, err
	}
	var vals []int64
	for _, b := range h.Distribution() {
		for range b.Count {
			vals = append(vals, b.To)
		}
	}
	return h, vals, nil
}

func median(x []float64) float64 {
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	return s[len(s)/2]
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "p99budget:", err)
	os.Exit(1)
}
