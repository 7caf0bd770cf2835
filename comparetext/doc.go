// Package comparetext renders a compare.Comparison for `perfgate compare`:
// a terminal table in benchstat's spirit (baseline, candidate, delta, its
// interval, p, verdict, per scenario), the same as GitHub markdown, and the
// perfgate.comparison/v1 JSON. It computes nothing: every figure shown is
// a field of the Comparison, only rounded for reading. Warnings are always
// shown, in every format.
package comparetext
