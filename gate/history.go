package gate

import (
	"context"
	"errors"
	"fmt"

	"github.com/perfgate/perfgate/changepoint"
	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/history"
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/result"
)

// LearnNoise learns, for each baseline's scenario, the run-to-run noise of
// its runner from the history (history.LearnNoise: the spread of the runs
// since the last change point, from history.MinNoiseRuns runs on). The
// scenarios the history cannot yet speak for are left out (the gate
// assumes gate.run_to_run for them) and named in the notes, which say how
// many runs each has. An empty history is no error: every scenario keeps
// the assumed value.
func LearnNoise(ctx context.Context, src history.Source, base []*result.Result) (map[string]compare.LearnedNoise, []string, error) {
	recs, err := src.Read(ctx)
	if errors.Is(err, history.ErrNoHistory) {
		return nil, []string{fmt.Sprintf("history %s holds no runs yet: run-to-run noise assumed (gate.run_to_run)", src)}, nil
	}
	if err != nil {
		return nil, nil, err
	}
	return learnFrom(recs, base)
}

// learnFrom is LearnNoise over records already read.
func learnFrom(recs []history.Record, base []*result.Result) (map[string]compare.LearnedNoise, []string, error) {
	learned := map[string]compare.LearnedNoise{}
	var notes []string
	for _, b := range base {
		runner := history.FingerprintID(result.FingerprintOf(b.Environment))
		n, err := history.LearnNoise(recs, b.Scenario, runner, changepoint.DefaultSettings())
		if err != nil {
			return nil, nil, err
		}
		if !n.Learned {
			notes = append(notes, fmt.Sprintf("%s: run-to-run noise assumed (gate.run_to_run): the history has %d run(s) of it on this runner since its last change, %d needed", b.Scenario, n.Runs, history.MinNoiseRuns))
			continue
		}
		ln := compare.LearnedNoise{Fraction: n.Fraction, Runs: n.Runs}
		note := fmt.Sprintf("%s: run-to-run noise %.1f%% learned from %d runs of the history (%s)", b.Scenario, 100*n.Fraction, n.Runs, n.Metric)
		if m := n.Median; m != nil && m.Learned {
			ln.MedianFraction, ln.MedianRuns = m.Fraction, m.Runs
			note += fmt.Sprintf(", the medians' %.1f%% (%s, %d runs)", 100*m.Fraction, m.Metric, m.Runs)
		}
		learned[b.Scenario] = ln
		notes = append(notes, note)
	}
	return learned, notes, nil
}

// withHistory reads the history src (none when nil) and learns the
// run-to-run noise of base's scenarios from it; it returns the noise
// learned, the notes to add to the report and the trend to draw (nil
// without a history).
func withHistory(ctx context.Context, src history.Source, base []*result.Result) (map[string]compare.LearnedNoise, []string, *report.Trend, error) {
	if src == nil {
		return nil, nil, nil, nil
	}
	recs, err := src.Read(ctx)
	if errors.Is(err, history.ErrNoHistory) {
		return map[string]compare.LearnedNoise{}, []string{fmt.Sprintf("history %s holds no runs yet: run-to-run noise assumed (gate.run_to_run)", src)}, nil, nil
	}
	if err != nil {
		return nil, nil, nil, fmt.Errorf("history %s: %w", src, err)
	}
	learned, notes, err := learnFrom(recs, base)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("history %s: %w", src, err)
	}
	if learned == nil {
		learned = map[string]compare.LearnedNoise{}
	}
	tr, err := TrendOf(recs)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("history %s: %w", src, err)
	}
	return learned, notes, tr, nil
}

// TrendOf is the report's trend of recs: every series and its change
// points.
func TrendOf(recs []history.Record) (*report.Trend, error) {
	t := &report.Trend{Series: history.AllSeries(recs, "", "")}
	for _, s := range t.Series {
		cs, err := s.Changes(changepoint.DefaultSettings())
		if err != nil {
			return nil, err
		}
		t.Changes = append(t.Changes, cs...)
	}
	return t, nil
}
