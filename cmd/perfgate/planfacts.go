package main

import (
	"fmt"
	"io"

	"github.com/perfgate/perfgate/result"
)

// printPlanFacts writes what a run learnt for capacity planning: the
// server cache's hit rate beside the latency, and where the server's
// metrics were found (or why not).
func printPlanFacts(w io.Writer, r *result.Result) {
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
