// Package gate joins the pipeline's stages for one verdict: it runs a
// config's scenarios (package suite), compares them with the stored
// baselines (compare), sizes capacity from their knees (sizing), and
// gathers everything the reports render (report.Report).
//
// Gate is the one entry of a gate: a Request names where the candidate
// comes from (Measure now, or Results measured elsewhere) and what it is
// compared with (the Stored baselines, with a history's noise, or an AB
// run of a base revision), and the policy (on_inconclusive, env
// mismatch). Its Outcome writes its own files (Write: comparison.json,
// report.md, report.html) and maps itself to one exit code and message
// (ExitCode, Message, Err), for `perfgate gate` and the GitHub Action
// alike, which only parse their inputs and render. StoreBaseline is the
// baseline mode (BaselineRuns runs, the noise floor, the store), and
// StoreRuns stores runs measured already (`perfgate baseline update`).
//
// Evaluate does the judging alone, for results already measured; it
// formats nothing.
package gate
