package suite

import (
	"fmt"
	"slices"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/harness"
	"github.com/perfgate/perfgate/result"
)

// restartsOf is how many fresh target processes the scenario's trials are
// spread over: its restarts key for a target perfgate starts (at least 1,
// at most its trials for a fixed load), 1 for a service given by URL.
func restartsOf(restarts int, started bool, trials int, sweep bool) int {
	if !started || restarts < 1 {
		return 1
	}
	if !sweep {
		restarts = min(restarts, max(trials, 1))
	}
	return restarts
}

// splitTrials spreads n trials over k groups as evenly as possible, the
// larger groups first (5 over 2 is 3 and 2).
func splitTrials(n, k int) []int {
	out := make([]int, k)
	for i := range out {
		out[i] = n / k
		if i < n%k {
			out[i]++
		}
	}
	return out
}

// mergeRuns joins the results of one scenario measured in several fresh
// target processes (each after its own warm-up) into one result: the
// trials in order, each stamped with its process (1, 2, …), and the
// summary recomputed from them. Latency quantiles come from the merged
// per-trial histograms, rates are weighted by each trial's window, and the
// result is valid only when every part is.
func mergeRuns(parts []*result.Result) *result.Result {
	if len(parts) == 1 {
		return parts[0]
	}
	out := *parts[0]
	out.Trials = nil
	out.Warnings = nil
	out.Valid = true
	out.Restarts = len(parts)
	for p, r := range parts {
		for _, t := range r.Trials {
			t.Process = p + 1
			out.Trials = append(out.Trials, t)
		}
		out.Valid = out.Valid && r.Valid
		out.Interrupted = out.Interrupted || r.Interrupted
		out.Simulated = out.Simulated || r.Simulated
		for _, w := range r.Warnings {
			w = fmt.Sprintf("process %d: %s", p+1, w)
			if !slices.Contains(out.Warnings, w) {
				out.Warnings = append(out.Warnings, w)
			}
		}
		if r.Telemetry != nil {
			out.Telemetry = r.Telemetry
		}
	}
	if w := parts[0].Load.WarmupAuto; w != nil {
		// Each process warmed up until steady on its own.
		wa := *w
		wa.ProcessesS = nil
		for _, r := range parts {
			if r.Load.WarmupAuto != nil {
				wa.ProcessesS = append(wa.ProcessesS, r.Load.WarmupS)
				wa.Steady = wa.Steady && r.Load.WarmupAuto.Steady
			}
		}
		out.Load.WarmupAuto = &wa
	}
	out.Load.Trials = len(out.Trials)
	out.Summary = summarize(out.Trials, &out)
	if w := firstTrialWarning(out.Trials, out.Load.WarmupS); w != "" {
		out.Warnings = append(out.Warnings, w)
	}
	return &out
}

// firstTrialWarning says, when the processes ran their first trial slower
// than their later ones (compare.FirstTrial at 95%: its interval above
// zero), that the warm-up ends before the target is steady: every
// process's first trial then adds the warm-up's tail to its figures. ""
// when they did not, or too few processes served two trials to tell.
func firstTrialWarning(trials []result.Trial, warmupS float64) string {
	e, ok := compare.FirstTrial(trials, 0.95)
	if !ok || !(e.CIPct[0] > 0) {
		return ""
	}
	return fmt.Sprintf("each target process ran its first trial slower than its later ones: P50 %+.1f%% [%+.1f%%, %+.1f%%] over %d processes; the warm-up (%gs) ends before the target is steady: lengthen load.warmup",
		e.Pct, e.CIPct[0], e.CIPct[1], e.Processes, warmupS)
}

// summarize recomputes res's summary from trials (result.SummaryOf, the
// one re-summary the suite, baselines and a target's death share) and its
// streaming summary (mergeLLM).
func summarize(trials []result.Trial, res *result.Result) result.Summary {
	s, err := result.SummaryOf(trials, res.Summary)
	if err != nil {
		res.Warnings = append(res.Warnings, fmt.Sprintf("merging the processes' trials: %v", err))
	}
	if res.LLM != nil {
		res.LLM = mergeLLM(trials, res.LLM)
	}
	return s
}

// mergeLLM recomputes the streaming summary from the trials' figures:
// TTFT and TPOT from the merged per-trial histograms, rates as the mean
// over trials.
func mergeLLM(trials []result.Trial, first *result.LLM) *result.LLM {
	l := *first
	var tok, good float64
	var n float64
	ttft, tpot := result.NewHistogram(), result.NewHistogram()
	merge := func(dst *hdrhistogram.Histogram, enc string) {
		if h, err := result.DecodeHistogram(enc); err == nil && enc != "" {
			_ = result.Merge(dst, h)
		}
	}
	for _, t := range trials {
		if t.LLM == nil {
			continue
		}
		n++
		tok += t.LLM.OutputTokensPerS
		good += t.LLM.GoodputRPS
		merge(ttft, t.LLM.TTFTHistogram)
		merge(tpot, t.LLM.TPOTHistogram)
	}
	if n == 0 {
		return first
	}
	l.OutputTokensPerS, l.GoodputRPS = tok/n, good/n
	if ttft.TotalCount() > 0 {
		l.TTFT = result.LatencyOf(ttft)
	}
	if tpot.TotalCount() > 0 {
		p := result.LatencyOf(tpot)
		l.TPOT = &p
	}
	// ITL, its gap counts and the prompt lengths merge as one recorder
	// would have seen every trial, when every trial kept its histograms.
	lls := make([]*result.LLM, 0, len(trials))
	for _, t := range trials {
		if t.LLM != nil {
			lls = append(lls, t.LLM)
		}
	}
	if m, err := harness.MergeLLM(lls); err == nil {
		l.ITL, l.ITLGaps, l.ITLUnobserved = m.ITL, m.ITLGaps, m.ITLUnobserved
		l.ITLCoalescedShare, l.ITLUntrusted = m.ITLCoalescedShare, m.ITLUntrusted
		l.PromptTokensMean, l.PromptWordsMean = m.PromptTokensMean, m.PromptWordsMean
	}
	return &l
}

// AppendRuns returns r with the trials of more runs of the same scenario
// appended (a gate's rerun of an undecided scenario): their processes are
// numbered after r's, the summary is recomputed over every trial, and the
// result is valid only when every run was. r is not modified.
func AppendRuns(r *result.Result, more ...*result.Result) *result.Result {
	out := *r
	out.Trials = append([]result.Trial{}, r.Trials...)
	out.Warnings = append([]string{}, r.Warnings...)
	out.Runner = appendSpeed(nil, r.Runner)
	procs := 0
	for _, t := range out.Trials {
		procs = max(procs, t.Process)
	}
	procs = max(procs, 1)
	for _, m := range more {
		last := procs
		for _, t := range m.Trials {
			t.Process = procs + max(t.Process, 1)
			last = max(last, t.Process)
			out.Trials = append(out.Trials, t)
		}
		procs = last
		out.Runner = appendSpeed(out.Runner, m.Runner)
		out.Valid = out.Valid && m.Valid
		out.Interrupted = out.Interrupted || m.Interrupted
		for _, w := range m.Warnings {
			if !slices.Contains(out.Warnings, w) {
				out.Warnings = append(out.Warnings, w)
			}
		}
	}
	out.Restarts = procs
	out.Load.Trials = len(out.Trials)
	out.Summary = summarize(out.Trials, &out)
	return &out
}

// appendSpeed returns a copy of into with more's samples appended; nil
// when neither has any.
func appendSpeed(into, more *result.RunnerSpeed) *result.RunnerSpeed {
	if more == nil || len(more.Samples) == 0 {
		return into
	}
	out := &result.RunnerSpeed{}
	if into != nil {
		out.Samples = append(out.Samples, into.Samples...)
	}
	out.Samples = append(out.Samples, more.Samples...)
	return out
}
