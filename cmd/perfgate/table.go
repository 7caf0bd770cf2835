package main

import (
	"io"

	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/suite"
)

// printResults writes the terminal summary table of a run (report.RunTable).
func printResults(w io.Writer, outs []suite.Outcome) {
	_ = report.RunTable(w, runRows(outs)) // a terminal write error has nowhere to go
}

// runRows are a run's outcomes as the report's run table takes them.
func runRows(outs []suite.Outcome) []report.RunRow {
	rows := make([]report.RunRow, len(outs))
	for i, o := range outs {
		rows[i] = report.RunRow{Scenario: o.Scenario.Name, Layer: o.Scenario.Layer, Result: o.Result}
	}
	return rows
}
