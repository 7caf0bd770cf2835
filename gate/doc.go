// Package gate joins the pipeline's stages for one verdict: it runs a
// config's scenarios (package suite), compares them with the stored
// baselines (compare), sizes capacity from their knees (sizing), and
// gathers everything the reports render (report.Report).
//
// Evaluate does the judging alone, for results already measured; Run
// measures first. Neither formats anything: the command and the GitHub
// Action render the report they return.
package gate
