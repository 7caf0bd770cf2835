package report

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/perfgate/perfgate/harness"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/sizing"
)

// RunRow is one scenario of a run for RunTable: its name and layer, and its
// result (nil when the scenario failed).
type RunRow struct {
	Scenario, Layer string
	Result          *result.Result
}

// RunTable writes the terminal summary of a run (perfgate run, demo): one
// table row per scenario (RunFigures), then what each result adds (the
// knee, Little's Law, streaming figures, planning facts, warnings).
func RunTable(w io.Writer, rows []RunRow) error {
	if err := RunFigures(w, rows); err != nil {
		return err
	}
	runNotes(w, rows)
	return nil
}

// RunFigures writes the run's table alone: one row per scenario, its
// load, requests, errors, rate and latency quantiles.
func RunFigures(w io.Writer, rows []RunRow) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scenario\tlayer\tload\trequests\terrors\tachieved/s\tp50 ms\tp90 ms\tp99 ms\tp99.9 ms\tmax ms\t")
	for _, o := range rows {
		r := o.Result
		if r == nil {
			// The error itself is printed once, on stderr, at the end.
			fmt.Fprintf(tw, "%s\t%s\tfailed\t\t\t\t\t\t\t\t\t\n", o.Scenario, o.Layer)
			continue
		}
		s := r.Summary
		name := r.Scenario
		if !r.Valid {
			// Said in the row itself: the figures beside it must not be
			// read as a measurement.
			name += " INVALID"
		}
		load := ""
		switch r.Load.Mode {
		case "rate":
			load = fmt.Sprintf("%g/s ×%d", r.Load.Rate, r.Load.Trials)
		case "concurrency":
			load = fmt.Sprintf("c=%d ×%d", r.Load.Concurrency, r.Load.Trials)
		case "sweep":
			load = "sweep"
		default:
			load = r.Load.Mode
		}
		if s.Requests == 0 {
			// Nothing measured (a knee search with no passing probe, or
			// no request completed): a dash, not a figure of 0.
			counts := fmt.Sprintf("%d\t%d", s.Requests, s.Errors)
			if r.Load.Mode == "sweep" {
				counts = "–\t–"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t–\t–\t–\t–\t–\t–\t\n", name, r.Layer, load, counts)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%.1f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t\n",
			name, r.Layer, load, s.Requests, s.Errors, s.AchievedRPS,
			s.Latency.P50, s.Latency.P90, s.Latency.P99, s.Latency.P999, s.Latency.Max)
	}
	return tw.Flush()
}

// runNotes writes what each result adds to its row: the knee, Little's
// Law, streaming figures, planning facts, warnings.
func runNotes(w io.Writer, rows []RunRow) {
	for _, o := range rows {
		r := o.Result
		if r == nil {
			continue
		}
		if !r.Valid {
			fmt.Fprintf(w, "%s: INVALID run: no gate compares it and it cannot be stored as a baseline (its warnings say why)\n", r.Scenario)
		}
		if c := r.Capacity; c != nil {
			switch {
			case c.Found && c.Bracket[1] > 0:
				fmt.Fprintf(w, "%s: max QPS under P99 ≤ %.0f ms: %.1f (bracket %.1f–%.1f, %d windows)\n",
					r.Scenario, c.SLOP99Ms, c.MaxQPS, c.Bracket[0], c.Bracket[1], c.Windows)
			case c.Found:
				fmt.Fprintf(w, "%s: max QPS under P99 ≤ %.0f ms: at least %.1f (no probe failed, %d windows)\n",
					r.Scenario, c.SLOP99Ms, c.MaxQPS, c.Windows)
			default:
				fmt.Fprintf(w, "%s: no rate met P99 ≤ %s ms (%d windows)\n", r.Scenario, strconv.FormatFloat(c.SLOP99Ms, 'f', -1, 64), c.Windows)
			}
		}
		if r.Load.Mode == "concurrency" {
			if lc, err := sizing.LittlesLaw(r); err == nil {
				fmt.Fprintf(w, "%s: Little's Law: measured in flight %.2f, λ·W = %.1f/s × %.2f ms = %.2f (%+.1f%%)\n",
					r.Scenario, lc.MeasuredInFlight, r.Summary.AchievedRPS, r.Summary.Latency.Mean, lc.PredictedInFlight, lc.RelGap*100)
			} else if errors.Is(err, sizing.ErrLittleWindowTooShort) {
				fmt.Fprintf(w, "%s: Little's Law: not checked: %s\n", r.Scenario, strings.TrimPrefix(err.Error(), "little's law for scenario \""+r.Scenario+"\": "))
			}
		}
		if l := r.LLM; l != nil {
			llmLine(w, r.Scenario, l)
		}
		planFacts(w, r)
		if r.Simulated {
			fmt.Fprintf(w, "%s: SIMULATED target: these figures come from a cost model, not real computation\n", r.Scenario)
		}
		for _, warn := range r.Warnings {
			fmt.Fprintf(w, "%s: warning: %s\n", r.Scenario, warn)
		}
	}
}

// llmLine writes a streamed run's figures. A figure no request had (TPOT
// and ITL with one-token answers) is "n/a", never 0; an ITL with too many
// unobserved gaps is flagged; the prompt length is given in the server's
// tokens beside the words sent.
func llmLine(w io.Writer, scenario string, l *result.LLM) {
	tpot, itl := "n/a", "n/a"
	if l.TPOT != nil {
		tpot = fmt.Sprintf("p50 %.2f / p99 %.2f ms", l.TPOT.P50, l.TPOT.P99)
	}
	if l.ITL != nil {
		itl = fmt.Sprintf("p99 %.2f ms", l.ITL.P99)
	}
	if l.ITLUntrusted {
		itl += fmt.Sprintf(" (UNTRUSTED: %.1f%% of gaps unobserved)", 100*l.ITLCoalescedShare)
	}
	fmt.Fprintf(w, "%s: TTFT p50 %.1f / p99 %.1f ms · TPOT %s · ITL %s · %.0f tokens/s · goodput %.1f req/s\n",
		scenario, l.TTFT.P50, l.TTFT.P99, tpot, itl, l.OutputTokensPerS, l.GoodputRPS)
	if l.PromptTokensMean > 0 || l.PromptWordsMean > 0 {
		toks := "not reported by the server"
		if l.PromptTokensMean > 0 {
			toks = fmt.Sprintf("%.1f tokens (server's usage)", l.PromptTokensMean)
		}
		fmt.Fprintf(w, "%s: prompt length: %s · %.1f words sent\n", scenario, toks, l.PromptWordsMean)
	}
	if l.ITLUntrusted {
		fmt.Fprintf(w, "%s: warning: ITL is untrusted: %d of %d inter-token gaps (%.1f%%, limit %.0f%%) arrived in one read with the next or previous token, so their times are the read's; ITL is not compared\n",
			scenario, l.ITLUnobserved, l.ITLGaps, 100*l.ITLCoalescedShare, 100*harness.MaxITLCoalescedShare)
	}
}

// planFacts writes what a run learnt for capacity planning: the
// server cache's hit rate beside the latency, and where the server's
// metrics were found (or why not).
func planFacts(w io.Writer, r *result.Result) {
	if c := r.Cache; c != nil {
		rep := ""
		if c.Repeat > 0 {
			rep = fmt.Sprintf("; %.0f%% of inputs repeated", 100*c.Repeat)
		}
		fmt.Fprintf(w, "%s: cache hit rate %.1f%% (%s: %.0f hits, %.0f misses, in %s%s) at P99 %.2f ms\n",
			r.Scenario, 100*c.HitRate, c.Source, c.Hits, c.Misses, c.Unit, rep, r.Summary.Latency.P99)
	}
	// A configured endpoint that served timing is the expected case: say
	// nothing. Say where a default probe found them, and what is missing.
	if m := r.Metrics; m != nil && (m.Origin != "config" || !m.Found || m.Why != "") {
		switch {
		case m.Found && m.Why == "":
			fmt.Fprintf(w, "%s: server metrics at %s (%s)\n", r.Scenario, m.URL, m.Origin)
		case m.Found:
			fmt.Fprintf(w, "%s: server metrics at %s (%s): %s\n", r.Scenario, m.URL, m.Origin, m.Why)
		default:
			fmt.Fprintf(w, "%s: no server metrics at %s (%s): %s\n", r.Scenario, m.URL, m.Origin, m.Why)
		}
	}
}
