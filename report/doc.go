// Package report is the one place perfgate turns data into text: it
// renders one gate run for people as a terminal text report, a
// GitHub-flavoured markdown report (the pull request comment and the step
// summary), an HTML page and a JSON document, all from the same Report; a
// comparison alone (`perfgate compare`: RenderComparison) and a capacity
// plan alone (`perfgate size`: RenderSizing) in the same three formats;
// the run table a terminal sees after `perfgate run` (RunTable); and the
// Action's own texts (RegressionLines for its annotations,
// BaselinesMarkdown for its baseline-mode summary). One
// ParseFormat reads --format for all of them, every renderer is
// func(io.Writer, …) error, and one set of number and escaping helpers
// (internal/textfmt) writes every figure. It renders and never computes:
// verdicts, intervals, layer attribution and instance counts come from
// packages compare and sizing, sweep points, environments and telemetry
// from the results.
//
// # The markdown report
//
// In order: a headline (verdict, the scenarios by verdict, the one thing
// to do next, the layers responsible); one table row per scenario, most
// severe first (P99 base → PR with its change and confidence interval,
// max QPS under the SLO base → PR, a verdict mark); at most
// MaxDecideLines lines on what would decide the undecided scenarios and
// what the gate can see (brief.go); the capacity plan at the configured
// peak (instances and cost base → PR); the per-layer attribution and the
// telemetry's bottleneck per scenario; a Mermaid xychart-beta of P99
// against offered load for each scenario swept on both sides; a collapsed
// <details> with the comparison's whole reason, the environment, the
// method (trials, thresholds, confidence) and every warning; links to the
// run; and the hidden marker the sticky comment
// is found by. The text report shows the same sections in the same order,
// less the charts and the links: both walk one list (sections, in
// sections.go) and render each section in their format. A comparison alone
// does the same with comparisonSections.
//
// # Five seconds
//
// A person reads a verdict in five seconds. The headline is one line of at
// most HeadlineMax characters (its title dropped, then cut, when longer);
// Brief and ComparisonBrief give a terminal the headline, the table and the
// decide lines only, and the commands print the rest (Text,
// ComparisonText) under --verbose and into the gate's log file. A change
// the gate could not see under VisibleLimitPct is said in words, and an
// interval's end beyond ±CapPct is written "over +1000%": such figures read
// as measurements they are not.
//
// A PR comment may hold at most 65,536 characters (CommentMaxBytes; bytes
// are counted, which is never fewer than characters). When the report is
// longer, Markdown drops, in this order, the <details>, the charts, and then
// scenario rows from the least severe up, and says so in a line that links
// to the step summary, which carries the whole report (SummaryMaxBytes).
//
// # Untrusted names
//
// Scenario, layer and target names come from perfgate.yaml, which a pull
// request can change. Every such string is escaped before it reaches
// markdown: HTML's < > & and ", markdown's | ` * _ [ ] ( ) # ~ ! \ and @
// (no mentions), and newlines; inside a Mermaid block only letters, digits
// and a few punctuation marks survive. The text report replaces control
// characters so a name cannot drive the terminal.
package report
