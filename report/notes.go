package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/perfgate/perfgate/compare"
)

// NoteText says a compare.Note in words: compare states the fact as a code
// and numbers, and this is the one place its sentence is written, for
// every output (terminal, Markdown, HTML, the Action's comment, and the
// comparison JSON's warnings). A code this version does not know is shown
// as the code itself.
func NoteText(n compare.Note) string {
	if say, ok := noteTexts[n.Code]; ok {
		return say(n)
	}
	return string(n.Code)
}

// noteTexts holds one function per note code.
var noteTexts = map[compare.NoteCode]func(compare.Note) string{
	compare.NoteDuplicateBaseline: func(n compare.Note) string {
		return fmt.Sprintf("two baselines for scenario %q: the later one is used", n.Scenario)
	},
	compare.NoteDuplicateCandidate: func(n compare.Note) string {
		return fmt.Sprintf("two candidate results for scenario %q: both compared", n.Scenario)
	},
	compare.NoteNotMeasured: func(n compare.Note) string {
		return fmt.Sprintf("baseline scenario %q was not measured: not compared", n.Scenario)
	},
	compare.NoteEnvMismatchAllowed: func(n compare.Note) string {
		return "ENVIRONMENT MISMATCH ALLOWED: the baseline was measured on different hardware (" +
			strings.Join(n.Names, "; ") + "); differences below may be the hardware's, not the code's"
	},
	compare.NoteInvalidResults: func(n compare.Note) string {
		return "invalid or interrupted results never pass or fail the gate: " + strings.Join(n.Names, ", ")
	},
	compare.NoteResultWarning: func(n compare.Note) string { return n.Side + ": " + n.Text },
	compare.NoteSimulated: func(n compare.Note) string {
		return n.Side + " measured a simulated target: the numbers exercise perfgate, not a real model"
	},

	compare.NoteLoadModes: func(n compare.Note) string {
		return fmt.Sprintf("load modes differ (baseline %s, candidate %s): latencies are not like for like", side(n.Names, 0), side(n.Names, 1))
	},
	compare.NoteConcurrency: func(n compare.Note) string {
		return fmt.Sprintf("concurrency differs (baseline %d, candidate %d): latencies are not like for like", n.NBase, n.NCand)
	},
	compare.NoteOfferedRates: func(n compare.Note) string {
		return fmt.Sprintf("offered rates differ (baseline %.4g/s, candidate %.4g/s): latencies are not like for like", n.Base, n.Cand)
	},
	compare.NoteTrialRates: func(n compare.Note) string {
		return fmt.Sprintf("the trials ran at different offered rates (baseline %.4g/s, candidate %.4g/s, e.g. each side's knee): latency changes partly reflect the load", n.Base, n.Cand)
	},

	compare.NoteTrialLeftOut: func(n compare.Note) string {
		return fmt.Sprintf("%s trial %d left out: %s", trialSide(n), n.Trial, n.Text)
	},
	compare.NoteTrialFlagged: func(n compare.Note) string {
		return fmt.Sprintf("%s trial %d kept though flagged: %s", trialSide(n), n.Trial, n.Text)
	},
	compare.NoteTrialNoRequests: func(n compare.Note) string {
		return fmt.Sprintf("%s trial %d has no successful request: left out of latency", trialSide(n), n.Trial)
	},
	compare.NoteTrialNoStreaming: func(n compare.Note) string {
		return fmt.Sprintf("%s trial %d has no streaming figures: streaming metrics not compared", trialSide(n), n.Trial)
	},

	compare.NoteSweepLatency: func(compare.Note) string {
		return "a sweep's latencies (P99, and TTFT and TPOT when streaming) were measured at each side's knee rate: shown, not gated (max QPS under the SLO is)"
	},
	compare.NoteKneelessLatency: func(compare.Note) string {
		return "a side's knee search met the SLO at no rate: it has no knee, so no latency at its knee to show"
	},
	compare.NoteNoHistograms: func(compare.Note) string {
		return "no latency histograms on one side: latency not compared"
	},
	compare.NoteHistogramsMissing: func(n compare.Note) string {
		return n.Metric + ": per-trial histograms missing on one side: not compared"
	},
	compare.NoteZeroBaseline: func(n compare.Note) string {
		return n.Metric + ": the baseline's is zero: no relative change to compare"
	},
	compare.NoteNoiseFloorRaised: func(n compare.Note) string {
		return fmt.Sprintf("%s: threshold for a regression raised from %.3g%% to the baseline's noise floor %.3g%% (how far independent runs of the baseline disagreed); unchanged still means within %.3g%%",
			n.Metric, n.Pct, n.FloorPct, n.Pct)
	},
	compare.NoteBaselineRunsDiffer: func(n compare.Note) string {
		return fmt.Sprintf("%s: the baseline's runs disagreed by %.3g%%, beyond what their processes' sampling explains: the candidate's own run may have moved as far, so that, pooled with the run-to-run noise assumed, is in the test on %.0f degree(s) of freedom",
			n.Metric, n.Pct, n.DF)
	},
	compare.NoteTrialPower: func(n compare.Note) string {
		return fmt.Sprintf("need at least %d trials per side for a p-value below %.3g (α %.3g shared by %d gated test(s), Holm): with %d baseline and %d candidate trials the smallest possible p-value is %.3g, so no regression can be called",
			n.Need, n.Level, n.Alpha, n.Tests, n.NBase, n.NCand, n.P)
	},
	compare.NoteSparseInconclusive: func(n compare.Note) string {
		return fmt.Sprintf("%s: a unit of its test held only %d requests, and a quantile like this one needs at least %d in each (fewer, and it is the slowest request): left inconclusive; lengthen the window or raise the rate",
			n.Metric, n.Count, n.Need)
	},
	compare.NoteSparseStands: func(n compare.Note) string {
		return fmt.Sprintf("%s: a unit of its test held only %d requests (a quantile like this one needs %d): %s stands because the median moved the same way",
			n.Metric, n.Count, n.Need, n.Verdict)
	},
	compare.NoteMediansNotGated: func(n compare.Note) string {
		return fmt.Sprintf("%s: reported, not gated: with %d vs %d trials the smallest possible p-value is %.2g, which the %d gated tests with them could not reach and the %d without them can",
			strings.Join(n.Names, ", "), n.NBase, n.NCand, n.P, n.Tests, n.Count)
	},

	compare.NoteComputeYields: func(n compare.Note) string {
		return fmt.Sprintf("%s: undecided, so %s, which holds it, decides (%s)", n.Metric, strings.Join(n.Names, ", "), n.Verdict)
	},
	compare.NoteNoWorse: func(n compare.Note) string {
		eq := "its equivalence interval"
		if n.CIPct != nil {
			eq += fmt.Sprintf(" [%+.1f%%, %+.1f%%]", n.CIPct[0], n.CIPct[1])
		}
		return fmt.Sprintf("%s: undecided, but no worse: %s rules out a regression of %g%% or more, so the improvement in %s stands",
			n.Metric, eq, n.Pct, strings.Join(n.Names, ", "))
	},

	compare.NoteKneeOneSweep: func(compare.Note) string { return "max_qps: only one side ran a sweep: not compared" },
	compare.NoteKneeNoPass: func(compare.Note) string {
		return "max_qps: the baseline's sweep found no passing rate: not compared"
	},
	compare.NoteKneeOpen: func(compare.Note) string {
		return "max_qps: the candidate's sweep stopped before any rate failed, so its knee has no upper bound: the change can be inconclusive, never unchanged or a regression"
	},
	compare.NoteKneeBracket: func(n compare.Note) string {
		who := "the " + n.Side
		if n.Side == "either" {
			who = "either side"
		}
		b, c := bounds(n.BaseRange), bounds(n.CandRange)
		return fmt.Sprintf("max_qps: one knee per run (no independent estimates on %s), so no test: the interval is what the knee brackets allow (baseline [%.4g, %.4g], candidate [%.4g, %.4g]) and a change beyond %.3g%% is inconclusive; confirm the knee (load.estimates >= %d) to test it",
			who, b[0], b[1], c[0], c[1], n.Pct, n.Need)
	},
	compare.NoteKneeCensored: func(n compare.Note) string {
		return fmt.Sprintf("max_qps: the %s's knee search met the SLO at no rate it tried (%d probes failed, the lowest at %.4g rps), so its max QPS is below %.4g rps: that bound tested as one more knee estimate against the other side's %d (Student's t on the logs, their spread and the run-to-run noise); delta_pct is the least change the data allow",
			n.Side, n.Count, n.Base, n.Base, n.Total)
	},
	compare.NoteKneePaired: func(n compare.Note) string {
		return fmt.Sprintf("max_qps: %d rounds of knee estimates, each round's two measured in the same fresh target processes back to back; Student's paired t-test on the rounds' log ratios, with no run-to-run term (both sides ran every round together); regressed only when the change is beyond %.3g%% and significant",
			n.Count, n.Pct)
	},
	compare.NoteKneeEstimates: func(n compare.Note) string {
		return fmt.Sprintf("max_qps: %d baseline and %d candidate knee estimates (the search's and one per confirmation round, each in a fresh target process where perfgate starts the target), Welch's t-test on their logarithms; regressed only when the change is beyond %.3g%% and significant",
			n.NBase, n.NCand, n.Pct)
	},

	compare.NotePairedFlagged: func(n compare.Note) string {
		return fmt.Sprintf("%s: %d of %d trials kept though flagged (the target fell behind the offered load: %s); their latencies, timed from each request's intended send, show the backlog",
			n.Side, n.Count, n.Total, n.Text)
	},
	compare.NotePairedLeftOut: func(n compare.Note) string {
		return fmt.Sprintf("%s: %d of %d units left out (an invalid trial or no value on one side)", n.Metric, n.Count, n.Total)
	},
	compare.NotePairedTooFewUnits: func(n compare.Note) string {
		return fmt.Sprintf("%d pair(s) measured, %d unit(s) of at least %d requests a side: at least 2 are needed", n.Total, n.Count, n.Need)
	},
	compare.NotePairedNoGated: func(n compare.Note) string {
		return fmt.Sprintf("no gated metric had a value on both sides of any of the %d units (%d pairs): the load generator limited every unit's trials or they held no requests; see the warnings", n.Count, n.Total)
	},

	compare.NoteFutile: func(n compare.Note) string {
		unit, left, raise := "pairs", "pairs", "ab.max_trials"
		if n.Metric == compare.MetricMaxQPS {
			unit, left, raise = "confirmation rounds", "rounds", "the scenario's load.estimates"
		}
		need := "no number of " + left + " would at this estimate"
		if n.Need > 0 {
			need = fmt.Sprintf("about %d would", n.Need)
		}
		return fmt.Sprintf("%s: stopped after %d %s: the %s left had a %.0f%% chance to decide it (%s; raise %s for more)", n.Metric, n.Count, unit, left, n.Pct, need, raise)
	},

	compare.NoteMorePairs: func(n compare.Note) string {
		unit, more, raise := "pairs", "pairs", "ab.max_trials, and ab.budget where it ended the run"
		if n.Metric == compare.MetricMaxQPS {
			unit, more, raise = "confirmation rounds", "rounds", "the scenario's load.estimates: an A/B knee measures up to twice the rounds it plans"
		}
		if n.Need == 0 {
			return fmt.Sprintf("%s: undecided after %d %s, and at this estimate no number of %s would decide it", n.Metric, n.Count, unit, more)
		}
		return fmt.Sprintf("%s: undecided after %d %s; at this estimate and spread about %d %s would decide it (raise %s)", n.Metric, n.Count, unit, n.Need, more, raise)
	},

	compare.NoteFirstTrial: func(n compare.Note) string {
		ci := ""
		if n.CIPct != nil {
			ci = fmt.Sprintf(" [%+.1f%%, %+.1f%%]", n.CIPct[0], n.CIPct[1])
		}
		return fmt.Sprintf("%s side: a target process's first trial read its P50 %+.1f%%%s above the same process's later trials, over %d processes: its warm-up ended before it was steady; the paired estimate cancels the bias, but a longer load.warmup, or a service steady sooner (memory and caches set up before it is ready), would narrow the interval",
			n.Side, n.Pct, ci, n.Count)
	},

	compare.NoteTailSampling: func(n compare.Note) string {
		// Sampling's the spread when its floor is most of it: the floor
		// reads a little off the spread even where sampling is all of it.
		if n.FloorPct >= 0.7*n.Pct {
			rests := ""
			if n.Metric == compare.MetricP99 || n.Metric == compare.MetricTTFTP99 || n.Metric == compare.MetricTPOTP99 {
				rests = fmt.Sprintf(" (a P99 rests on its %d slowest)", max(1, int(math.Round(float64(n.Need)/100))))
			}
			return fmt.Sprintf("%s: a unit's ratio varies by %.1f%% (standard deviation) where sampling %d requests a side gives %.1f%% alone%s: a quieter runner would not narrow it; more requests a unit would (a longer window or a higher rate), or more pairs",
				n.Metric, n.Pct, n.Need, n.FloorPct, rests)
		}
		return fmt.Sprintf("%s: a unit's ratio varies by %.1f%% (standard deviation), of which sampling %d requests a side gives %.1f%%: the rest moves with the runner or the service from unit to unit (other work, scheduling, its own state), which more requests a unit would not remove",
			n.Metric, n.Pct, n.Need, n.FloorPct)
	},

	compare.NoteRunInterrupted: func(n compare.Note) string { return n.Side + " run was interrupted" },
	compare.NoteRunInvalid: func(n compare.Note) string {
		return n.Side + " run is invalid (the load generator could not hold its schedule or every trial was invalid)"
	},
	compare.NoteNoValidTrials: func(n compare.Note) string {
		return fmt.Sprintf("no valid trials to compare (%d baseline, %d candidate)", n.NBase, n.NCand)
	},
	compare.NoteUnreadableTrial: func(n compare.Note) string { return n.Text },

	compare.NoteRungInvalid: func(n compare.Note) string {
		return fmt.Sprintf("rung %q is from an invalid or interrupted run: its attribution is not to be trusted", n.Scenario)
	},
	compare.NoteRungNoLayer: func(n compare.Note) string {
		return fmt.Sprintf("rung %q names no layer: its step cannot be credited to one", n.Scenario)
	},
	compare.NoteLadderNoQPS: func(compare.Note) string {
		return "not every rung ran a sweep that found a knee: max QPS is not attributed"
	},
	compare.NoteLadderBusy: func(n compare.Note) string {
		return fmt.Sprintf("ladder step %s → %s: its %s %s rests on %d of %d measurements taken while the host was busy with other work: inconclusive (host busy)",
			n.From, n.To, quantity(n.Metric), n.Verdict, n.Count, n.Total)
	},
}

// trialSide names the side of a trial note: "baseline", "candidate", or
// "rung NAME" in a ladder.
func trialSide(n compare.Note) string {
	if n.Scenario != "" {
		return n.Side + " " + n.Scenario
	}
	return n.Side
}

// side is names[i], or "" when there is none.
func side(names []string, i int) string {
	if i < len(names) {
		return names[i]
	}
	return ""
}

// bounds is a knee bracket, zeros when there is none.
func bounds(r *[2]float64) [2]float64 {
	if r == nil {
		return [2]float64{}
	}
	return *r
}

// quantity names a ladder step's metric as its notes say it.
func quantity(metric string) string {
	switch metric {
	case compare.MetricP99:
		return "P99"
	case compare.MetricMaxQPS:
		return "max QPS"
	}
	return metric
}

// NotesText says notes in words, in order.
func NotesText(ns []compare.Note) []string {
	var out []string
	for _, n := range ns {
		out = append(out, NoteText(n))
	}
	return out
}

// comparisonWarnings are the comparison's warnings as every output shows
// them: its notes in words, then the callers' own.
func comparisonWarnings(c *compare.Comparison) []string {
	return joinWarnings(c.Notes, c.Warnings)
}

// scenarioWarnings are a scenario's, as comparisonWarnings.
func scenarioWarnings(sc *compare.ScenarioComparison) []string {
	return joinWarnings(sc.Notes, sc.Warnings)
}

// ladderWarnings are a ladder's, as comparisonWarnings.
func ladderWarnings(la *compare.LadderAttribution) []string {
	return joinWarnings(la.Notes, la.Warnings)
}

func joinWarnings(ns []compare.Note, ws []string) []string {
	if len(ns) == 0 {
		return ws
	}
	return append(NotesText(ns), ws...)
}

// spoken is a shallow copy of c whose warnings hold its notes' words
// before the callers' own, and whose reasons, detects, mde_limit and
// lever hold the words composed from their data, as the
// perfgate.comparison/v1 JSON carries them (docs/formats.md): a reader of
// the JSON sees the same sentences as the reports, and the codes beside
// them.
func spoken(c *compare.Comparison) *compare.Comparison {
	if c == nil {
		return nil
	}
	out := *c
	out.Reason, out.Detects = Reason(c), Detects(c)
	out.Warnings = comparisonWarnings(c)
	out.Scenarios = make([]compare.ScenarioComparison, len(c.Scenarios))
	for i := range c.Scenarios {
		out.Scenarios[i] = c.Scenarios[i]
		out.Scenarios[i].Warnings = scenarioWarnings(&c.Scenarios[i])
		out.Scenarios[i].Reason = ScenarioReason(&c.Scenarios[i])
		out.Scenarios[i].Downgrades = spokenDowngrades(c.Scenarios[i].Downgrades)
		if ms := c.Scenarios[i].Metrics; ms != nil {
			out.Scenarios[i].Metrics = make([]compare.Metric, len(ms))
			for k, m := range ms {
				m.MDELimit = MDELimit(m)
				out.Scenarios[i].Metrics[k] = m
			}
		}
	}
	if c.Sensitivity != nil {
		out.Sensitivity = make([]compare.Sensitivity, len(c.Sensitivity))
		for i, s := range c.Sensitivity {
			s.Lever = SensitivityLever(s)
			out.Sensitivity[i] = s
		}
	}
	if c.Ladder != nil {
		la := *c.Ladder
		la.Warnings = ladderWarnings(c.Ladder)
		out.Ladder = &la
	}
	return &out
}

// spokenDowngrades is a copy of ds whose Why holds each one's causes in
// words before the callers' own, as the JSON carries them.
func spokenDowngrades(ds []compare.Downgrade) []compare.Downgrade {
	if ds == nil {
		return nil
	}
	out := make([]compare.Downgrade, len(ds))
	for i, d := range ds {
		out[i] = d
		out[i].Why = joinWarnings(d.Causes, d.Why)
	}
	return out
}

// unspoken undoes spoken on a decoded comparison: the warnings that are
// its notes' words, and the words that match what their data compose,
// are dropped, so that the reports compose them once.
// Warnings a newer or older wording wrote stay (shown beside the notes'
// words), never lost.
func unspoken(c *compare.Comparison) {
	if c == nil {
		return
	}
	c.Warnings = dropSpoken(c.Notes, c.Warnings)
	for i := range c.Scenarios {
		sc := &c.Scenarios[i]
		sc.Warnings = dropSpoken(sc.Notes, sc.Warnings)
		for j := range sc.Downgrades {
			d := &sc.Downgrades[j]
			d.Why = dropSpoken(d.Causes, d.Why)
		}
		if sc.Reason != "" && sc.Reason == scenarioReason(sc) {
			sc.Reason = ""
		}
		for k := range sc.Metrics {
			m := &sc.Metrics[k]
			if m.MDELimit != "" && m.MDELimit == boundText(m.MDEBound, m.RunToRunVar, m.ThresholdPct, m.MDEUnit) {
				m.MDELimit = ""
			}
		}
	}
	for i := range c.Sensitivity {
		s := &c.Sensitivity[i]
		if s.Lever != "" && s.Lever == sensitivityLever(*s) {
			s.Lever = ""
		}
	}
	if c.Ladder != nil {
		c.Ladder.Warnings = dropSpoken(c.Ladder.Notes, c.Ladder.Warnings)
	}
	// Last: the sensitivity line is composed from the levers, and the
	// comparison's reason from its scenarios and that line.
	if c.Detects != "" && c.Detects == detectsText(c.Sensitivity) {
		c.Detects = ""
	}
	if c.Reason != "" && c.Reason == comparisonReason(c) {
		c.Reason = ""
	}
}

// dropSpoken removes from the front of ws the words of ns, when ws starts
// with exactly them.
func dropSpoken(ns []compare.Note, ws []string) []string {
	words := NotesText(ns)
	if len(words) == 0 || len(ws) < len(words) {
		return ws
	}
	for i, w := range words {
		if ws[i] != w {
			return ws
		}
	}
	if len(ws) == len(words) {
		return nil
	}
	return ws[len(words):]
}
