package compare

import "math"

// The guards' checks: each reads a metric or a scenario and the evidence
// of its runs and says what it cannot stand behind. They assign nothing;
// verdict.go applies them, in the order its pipeline states.

// noiseFloorHolds: inside the noise floor is not inside the threshold (or
// the wider margin of unchanged) the user set; a PASS must not hide a
// change beyond it.
func noiseFloorHolds(m Metric) bool {
	thr := m.ConfiguredThresholdPct
	if thr <= 0 || m.Verdict != Unchanged {
		return false
	}
	thr = math.Max(thr, m.EquivalencePct)
	eq := m.equivalenceCI()
	return eq[0] < -thr || eq[1] > thr
}

// noTestHolds: one knee a side has no test, so no regression or
// improvement; and a knee with no upper bound (a sweep that never failed)
// is never unchanged either.
func noTestHolds(m Metric) bool {
	if m.Method != MethodBracket {
		return false
	}
	return m.Verdict == Regressed || m.Verdict == Improved || (m.CIOpenHigh && m.Verdict == Unchanged)
}

// sparseGuard: a regression or improvement of a quantile resting on too
// few requests a unit (RequestsNeeded) stands only when the request
// latency's median, which a handful of requests does estimate, moved the
// same way under its own test (a whole distribution that moved, not one
// slow request); anything else of such a quantile is inconclusive.
func sparseGuard(sc *ScenarioComparison, _ *scenarioEvidence) *Downgrade {
	var p50 Verdict
	for _, m := range sc.Metrics {
		if m.Metric == MetricP50 {
			p50 = m.Verdict
		}
	}
	d := &Downgrade{}
	for i, m := range sc.Metrics {
		if m.RequestsNeeded == 0 || m.Verdict == Inconclusive {
			continue
		}
		if (m.Verdict == Regressed || m.Verdict == Improved) && p50 == m.Verdict {
			continue
		}
		d.at = append(d.at, i)
	}
	if len(d.at) == 0 {
		return nil
	}
	return d
}

// hostBusyGuard: a regression resting on busy trials (or knee probes) of
// either side, or an improvement on the baseline's (whose busy host made
// it look slower than it is), is inconclusive: the host's other work, not
// the change, may explain it.
func hostBusyGuard(sc *ScenarioComparison, ev *scenarioEvidence) *Downgrade {
	if ev.ignoreHost || (sc.Verdict != Regressed && sc.Verdict != Improved) {
		return nil
	}
	from, sides := sc.Verdict, ev.busy[:]
	if from == Improved {
		sides = sides[:1]
	}
	d := &Downgrade{From: from}
	for k, x := range sides {
		side := [2]string{"baseline", "candidate"}[k]
		if x.trials > 0 {
			d.Busy = append(d.Busy, BusyCount{Side: side, Of: "trials", Busy: x.trials, Total: x.of, Why: x.why})
		}
		// A knee rests on its probes: a max-QPS change measured while the
		// host was busy is no more trusted than a latency one.
		if x.probes > 0 && maxQPSIs(sc, from) {
			d.Busy = append(d.Busy, BusyCount{Side: side, Of: "knee probes", Busy: x.probes, Total: x.probesOf, Why: x.probeWhy})
		}
	}
	if len(d.Busy) == 0 {
		return nil
	}
	for i, m := range sc.Metrics {
		if m.Verdict == from {
			d.at = append(d.at, i)
		}
	}
	return d
}

// runnerShiftGuard: a regressed metric measured while the runner ran
// slower than during the baseline, or an improved one while it ran
// faster, whose least change consistent with the data (the near end of
// its interval) is within RunnerAmplification times the runner's shift.
// A change of the build does not move the probe, which runs while no load
// does. Error rates are never excused.
func runnerShiftGuard(sc *ScenarioComparison, ev *scenarioEvidence) *Downgrade {
	if !ev.moved || ev.ignoreHost {
		return nil
	}
	from := Improved
	if ev.shift > 0 {
		from = Regressed
	}
	reach := RunnerAmplification * math.Abs(math.Log1p(ev.shift/100))
	d := &Downgrade{From: from, ShiftPct: ev.shift}
	for i, m := range sc.Metrics {
		if m.Verdict == from && !m.Absolute && leastChange(m) <= reach {
			d.at = append(d.at, i)
		}
	}
	if len(d.at) == 0 {
		return nil
	}
	return d
}

// invalidGuard: results whose run was invalid or interrupted are compared
// for reading but never pass or fail: every metric is inconclusive.
func invalidGuard(sc *ScenarioComparison, ev *scenarioEvidence) *Downgrade {
	if len(ev.invalid) == 0 && len(ev.why) == 0 {
		return nil
	}
	d := &Downgrade{Causes: ev.invalid, Why: ev.why}
	for i := range sc.Metrics {
		d.at = append(d.at, i)
	}
	return d
}
