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
}

// trialP99 is a trial's P99 (ms, as the engine reads it: the HDR
// histogram's value at the 99th percentile), the bootstrap variance of
// its logarithm over resamples of the trial's own requests, and the
// requests.
func trialP99(t result.Trial, resamples int, rng *rand.Rand) (p99, logVar float64, n int, err error) {
	h, err := result.DecodeHistogram(t.Histogram)
	if err != nil {
		return 0, 0, 0, err
	}
	var vals []int64
	for _, b := range h.Distribution() {
		for range b.Count {
			vals = append(vals, b.To)
		}
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

func median(x []float64) float64 {
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	return s[len(s)/2]
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "p99budget:", err)
	os.Exit(1)
}
