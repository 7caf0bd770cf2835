package main

import (
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/suite"
)

// printSpectrum ends `perfgate run` at a terminal with one sparkline of
// the latency spectrum per scenario. It is for a person: it is left out
// when stderr is not a terminal (a pipe, a file, a CI log) or when CI is
// set, so logs keep only the table.
func printSpectrum(e *env, outs []suite.Outcome) {
	if !e.isTerminal || e.getenv("CI") != "" || e.getenv("GITHUB_ACTIONS") != "" {
		return
	}
	var rs []*result.Result
	for _, o := range outs {
		rs = append(rs, o.Result)
	}
	_ = report.Spectrum(e.stderr, rs) // a terminal nicety; a write error is not the run's
}
