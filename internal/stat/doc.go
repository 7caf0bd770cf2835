// Package stat holds the summary statistics that several perfgate
// packages share — the mean, the sample standard deviation, the geometric
// mean and its t-interval on the log scale, Student's t quantiles and the
// Mann-Kendall trend statistic — so that each is written once. It is a
// leaf: it imports no perfgate package, so compare, history, sizing and
// harness can all call it without an import cycle. Functions return
// numbers only; none formats, logs or rounds for display.
package stat
