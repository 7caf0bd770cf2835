package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/merge"
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/sizing"
	"github.com/perfgate/perfgate/telemetry"
)

// synopsis is one command's usage lines: the one source of the overview
// (`perfgate help`), each command's -h, and the manual's Usage block in
// doc.go (kept equal by TestManualUsageIsTheSynopses). A line that starts
// with spaces continues the one above it.
type synopsis struct {
	command string
	lines   []string
}

// synopses are the commands' usage lines, in the manual's order. The
// defaults they show are the ones the flags and the config use.
func synopses() []synopsis {
	d := config.Defaults()
	formats := strings.Join(report.Formats, "|")
	return []synopsis{
		{"demo", []string{"perfgate demo [--quick] [--out DIR] [--verbose]"}},
		{"run", []string{
			"perfgate run --config " + config.DefaultFile + " [--scenario NAME]... [--out DIR] [--generator-cpus LIST]",
			"perfgate run --url URL [--protocol " + strings.Join(config.Protocols, "|") + "] [--model NAME]",
			"             [--rate R | --concurrency C | --sweep --slo-p99 DUR | --trace FILE]",
			fmt.Sprintf("             [--duration %v] [--warmup %v] [--trials %d] [--body @FILE] [--out FILE]", d.Duration, d.Warmup, d.Trials),
			"perfgate run --config " + config.DefaultFile + " --part I/N [--list]",
			"perfgate run --url URL ... --generator I/N [--start-at RFC3339]",
		}},
		{"compare", []string{
			"perfgate compare [--config " + config.DefaultFile + "] --baseline FILE|DIR --candidate FILE|DIR [--format " + formats + "]",
			fmt.Sprintf("                 [--allow-env-mismatch] [--p99-threshold %s] [--confidence %v] [--fail-on-inconclusive] [--verbose]", thresholdString(d.P99Regression), d.Confidence),
			"perfgate compare [flags] BASELINE CANDIDATE",
		}},
		{"size", []string{
			fmt.Sprintf("perfgate size [--config %s] --result FILE --peak-qps N [--headroom %v] [--cost-per-hour X] [--format %s]", config.DefaultFile, sizing.DefaultHeadroom, formats),
			"perfgate size [--config " + config.DefaultFile + "] --result FILE --traffic curve.csv [--lead-time 1h] [--scale-in-after 1h] [--emit keda|hpa]",
		}},
		{"gate", []string{
			"perfgate gate --config " + config.DefaultFile + " [--baselines DIR] [--out DIR] [--allow-env-mismatch] [--results DIR] [--on-inconclusive pass|fail|rerun] [--verbose]",
			"perfgate gate --config " + config.DefaultFile + " --ab REF [--design interleaved|concurrent] [--out DIR]",
		}},
		{"merge", []string{fmt.Sprintf("perfgate merge --out DIR [--max-skew %v] PATH...", merge.DefaultMaxSkew)}},
		{"baseline", []string{"perfgate baseline update --from DIR [--from DIR2]... --to DIR [--tag T] [--config " + config.DefaultFile + "] [--history DIR] [--force]"}},
		{"history", []string{
			"perfgate history show|changes [--history DIR|REF] [--scenario S] [--metric p99_ms] [--format text|markdown|json]",
			"perfgate history add|push --from DIR [--history DIR] [--branch perfgate-data] [--commit SHA]",
			"perfgate history compact [--history DIR] [--keep N] [--keep-histograms N]",
		}},
		{"bisect", []string{"perfgate bisect --good A [--bad B] [--config " + config.DefaultFile + "] [--scenario S]... [--out DIR] [--format text|json]"}},
		{"export", []string{"perfgate export --format bmf|github-action-benchmark|openmetrics [--tool customSmallerIsBetter|customBiggerIsBetter] RESULTS…"}},
		{"report", []string{"perfgate report --html OUT.html [--baseline FILE|DIR] [--config " + config.DefaultFile + "] RESULTS…"}},
		{"fixture", []string{
			"perfgate fixture serve --addr 127.0.0.1:8000 [--grpc-addr 127.0.0.1:8001] [--precision fp32|int8]",
			"             [--batch-window 5ms] [--max-batch 32] [--model mlp|sim|large] ...",
		}},
		{"action", []string{"perfgate action [--comment-from DIR]"}},
		{"gpu-sample", []string{fmt.Sprintf("perfgate gpu-sample [--duration %v] [--interval %v]", gpuSampleDuration, telemetry.DefaultInterval)}},
		{"version", []string{"perfgate version"}},
	}
}

// usageText is `perfgate help`: every command's synopsis.
var usageText = func() string {
	var b strings.Builder
	b.WriteString("perfgate: load-test an inference service, gate regressions, size capacity.\n\nUsage:\n")
	for _, s := range synopses() {
		for _, l := range s.lines {
			b.WriteString("  " + l + "\n")
		}
	}
	b.WriteString("\nRun \"perfgate COMMAND -h\" for a command's flags.\n")
	return b.String()
}()

// commandUsage is a command's synopsis as its -h prints it, beginning
// "usage: ".
func commandUsage(command string) string {
	var b strings.Builder
	for _, s := range synopses() {
		if s.command != command {
			continue
		}
		for i, l := range s.lines {
			if i == 0 {
				b.WriteString("usage: " + l + "\n")
			} else {
				b.WriteString("       " + l + "\n")
			}
		}
	}
	return b.String()
}

// setUsage makes fs's -h print the command's synopsis and then its flags.
func setUsage(fs *flag.FlagSet, command string) {
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), commandUsage(command))
		fs.PrintDefaults()
	}
}

// formatFlag defines --format: what writes, in one of report.Formats,
// text by default.
func formatFlag(fs *flag.FlagSet, what string) *string {
	return fs.String("format", string(report.FormatText), what+": "+strings.Join(report.Formats, ", "))
}
