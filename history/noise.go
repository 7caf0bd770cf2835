package history

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/perfgate/perfgate/changepoint"
	"github.com/perfgate/perfgate/internal/stat"
)

// MinNoiseRuns is the fewest runs of a scenario on a runner, since its
// last change point, from which the run-to-run noise is learned; below it
// the assumed value (gate.run_to_run) is used.
const MinNoiseRuns = 8

// noiseMetrics are the metrics whose spread is the run-to-run noise: the
// gated ones that vary with the whole run (the P99 over processes and max
// QPS over knee estimates both take the run-to-run variance).
// medianNoiseMetrics are the medians', learned apart: a run moves the
// median far less than the tail (compare.Settings.RunToRunMedian).
var (
	noiseMetrics       = []string{MetricP99, MetricMaxQPS, MetricTTFTP99, MetricTPOTP99}
	medianNoiseMetrics = []string{MetricP50}
)

// Noise is what the history says of one scenario's run-to-run noise on
// one runner.
type Noise struct {
	Scenario string `json:"scenario"`
	Runner   string `json:"runner"`
	// Fraction is the learned noise in the form gate.run_to_run takes:
	// exp(s)−1 where s is the standard deviation of the log run-level
	// values since the last change point, the largest over the noise
	// metrics; 0 when not learned.
	Fraction float64 `json:"fraction"`
	// Runs is how many runs it was learned from (since the last change
	// point, the fewest over the metrics used).
	Runs int `json:"runs"`
	// Metric is the metric whose spread set Fraction.
	Metric string `json:"metric,omitempty"`
	// Learned is false below MinNoiseRuns runs: use the assumed value.
	Learned bool `json:"learned"`
	// Median is the same for the medians (gate.run_to_run_median's
	// form), learned from their own spread.
	Median *Noise `json:"median,omitempty"`
}

// Source says where the gate's run-to-run noise came from, in the words
// the comparison records: "history (14 runs)".
func (n Noise) Source() string {
	return fmt.Sprintf("history (%d runs)", n.Runs)
}

// LearnNoise learns a scenario's run-to-run noise on runner from recs:
// for each noise metric, the runs since the last change point (so a real
// change is not mistaken for noise), the standard deviation of their log
// values. The largest over the metrics with at least MinNoiseRuns runs is
// the noise; Learned is false when no metric has that many. The medians'
// noise is learned the same way from their own metrics, in Median (nil
// when the history holds none of them).
func LearnNoise(recs []Record, scenario, runner string, set changepoint.Settings) (Noise, error) {
	n, err := learnSpread(recs, scenario, runner, set, noiseMetrics)
	if err != nil {
		return n, err
	}
	m, err := learnSpread(recs, scenario, runner, set, medianNoiseMetrics)
	if err != nil {
		return n, err
	}
	if m.Learned || m.Runs > 0 {
		n.Median = &m
	}
	return n, nil
}

// learnSpread is LearnNoise over one family of metrics.
func learnSpread(recs []Record, scenario, runner string, set changepoint.Settings, metrics []string) (Noise, error) {
	n := Noise{Scenario: scenario, Runner: runner}
	for _, s := range AllSeries(recs, scenario, "") {
		if s.Runner != runner || !slices.Contains(metrics, s.Metric) {
			continue
		}
		cs, err := s.Changes(set)
		if err != nil {
			return n, err
		}
		pts := s.Points
		if len(cs) > 0 {
			pts = pts[cs[len(cs)-1].Index:]
		}
		var logs []float64
		for _, p := range pts {
			if p.Value > 0 {
				logs = append(logs, math.Log(p.Value))
			}
		}
		if len(logs) < MinNoiseRuns {
			if !n.Learned && len(logs) > n.Runs {
				n.Runs = len(logs)
			}
			continue
		}
		f := math.Expm1(stat.StdDev(logs))
		if !(f >= 0 && f < 1) {
			// The range of gate.run_to_run, which it stands in for:
			// absurd values in the history (1e308 beside 1e-300) learn
			// +Inf or NaN, which would disable the gate.
			return n, fmt.Errorf("%s: scenario %q: run-to-run noise learned from %s is %s%%: out of range, want from 0%% and less than 100%% (the range of gate.run_to_run)",
				FileName(scenario), scenario, s.Metric, strconv.FormatFloat(100*f, 'g', 4, 64))
		}
		if !n.Learned || f > n.Fraction {
			n.Fraction, n.Metric = f, s.Metric
			if !n.Learned || len(logs) < n.Runs {
				n.Runs = len(logs)
			}
			n.Learned = true
		}
	}
	n.Fraction = math.Round(n.Fraction*10000) / 10000
	return n, nil
}
