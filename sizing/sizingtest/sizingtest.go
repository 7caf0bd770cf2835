// Package sizingtest builds the capacity sweeps that the tests of package
// sizing and of its renderers (package report) plan from, so that both
// size the same inputs without keeping two copies of them.
package sizingtest

import "github.com/perfgate/perfgate/result"

// Sweep returns a valid sweep result of scenario "kserve-int8" whose knee
// is maxQPS, bracketed by lowestFail (0: no probe failed), with mean
// latency meanMs at the knee and 0.9 × meanMs at half of it.
func Sweep(maxQPS, lowestFail, meanMs float64) *result.Result {
	pts := []result.Point{
		{OfferedRPS: maxQPS / 2, AchievedRPS: maxQPS / 2, Latency: result.Latency{P50: meanMs * 0.8, P99: 10, Mean: meanMs * 0.9}, Pass: true},
		{OfferedRPS: maxQPS, AchievedRPS: maxQPS, Latency: result.Latency{P50: meanMs * 0.9, P99: 40, Mean: meanMs}, Pass: true},
	}
	if lowestFail > 0 {
		pts = append(pts, result.Point{OfferedRPS: lowestFail, AchievedRPS: lowestFail, Latency: result.Latency{P50: 20, P99: 80, Mean: 25}, Why: "p99 80 ms > slo 50 ms"})
	}
	return &result.Result{
		Schema: result.Schema, Scenario: "kserve-int8", Valid: true,
		Capacity: &result.Capacity{SLOP99Ms: 50, MaxQPS: maxQPS, Bracket: [2]float64{maxQPS, lowestFail},
			Points: pts, Found: true, Windows: len(pts)},
	}
}

// Knee returns a valid result of scenario "svc" whose knee is exactly
// maxQPS (one passing probe, mean latency 10 ms; the bracket's upper end
// 3% above).
func Knee(maxQPS float64) *result.Result {
	return &result.Result{Schema: result.Schema, Scenario: "svc", Valid: true, Capacity: &result.Capacity{
		SLOP99Ms: 50, MaxQPS: maxQPS, Bracket: [2]float64{maxQPS, maxQPS * 1.03}, Found: true,
		Points: []result.Point{{OfferedRPS: maxQPS, AchievedRPS: maxQPS, Pass: true, Latency: result.Latency{Mean: 10}}},
	}}
}
