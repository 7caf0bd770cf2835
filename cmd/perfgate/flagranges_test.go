package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/perfgate/perfgate/config"
)

var updateRanges = flag.Bool("update-ranges", false, "rewrite docs/config-ranges.md from the range tables")

// Every numeric flag out of its range is a usage error naming the flag,
// the value and the range, before anything starts: the URL is never
// dialled (nothing listens on port 1, and the run would take seconds).
func TestFlagOutOfRange(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"rate too high", []string{"run", "--url", "http://127.0.0.1:1/", "--rate", "1e12"}, "run: --rate: 1000000000000 is out of range: want more than 0 and at most 1000000 requests per second"},
		{"rate infinite", []string{"run", "--url", "http://127.0.0.1:1/", "--rate", "Inf"}, "run: --rate: +Inf is out of range"},
		{"rate NaN", []string{"run", "--url", "http://127.0.0.1:1/", "--rate", "NaN"}, "run: --rate: NaN is out of range"},
		{"too many trials", []string{"run", "--url", "http://127.0.0.1:1/", "--rate", "5", "--trials", "5000"}, "run: --trials: 5000 is out of range: want a whole number from 1 to 100"},
		{"billion in flight", []string{"run", "--url", "http://127.0.0.1:1/", "--concurrency", "1000000000"}, "run: --concurrency: 1000000000 is out of range"},
		// Zero is not "the default": it is refused.
		{"zero duration", []string{"run", "--url", "http://127.0.0.1:1/", "--rate", "5", "--duration", "0s"}, "run: --duration: 0s is out of range: want more than 0s and at most 24h"},
		{"day-long timeout", []string{"run", "--url", "http://127.0.0.1:1/", "--rate", "5", "--timeout", "25h"}, "run: --timeout: 25h is out of range"},
		{"error rate over 100%", []string{"run", "--url", "http://127.0.0.1:1/", "--sweep", "--slo-p99", "50ms", "--max-error-rate", "150%"}, "run: --max-error-rate: 150% is out of range"},
		{"empty tensor", []string{"run", "--url", "http://127.0.0.1:1/", "--rate", "5", "--protocol", "kserve-http", "--model", "m", "--shape", "1,0"}, "run: --shape: 0 is out of range"},
		{"huge tensor", []string{"run", "--url", "http://127.0.0.1:1/", "--rate", "5", "--protocol", "kserve-http", "--model", "m", "--shape", "100000,100000"}, "run: --shape: 10000000000 is out of range"},
		{"headroom under 1", []string{"size", "--result", "r.json", "--peak-qps", "5", "--headroom", "0.5"}, "size: --headroom: 0.5 is out of range: want from 1 to 100"},
		{"few resamples", []string{"compare", "--baseline", "a", "--candidate", "b", "--resamples", "5"}, "compare: --resamples: 5 is out of range"},
		{"fixture NaN factor", []string{"fixture", "serve", "--int8-factor", "NaN"}, "fixture serve: --int8-factor: NaN is out of range"},
		{"zero sampling interval", []string{"gpu-sample", "--interval", "0s"}, "gpu-sample: --interval: 0s is out of range"},
		{"negative loop spin", []string{"run", "--url", "http://127.0.0.1:1/", "--rate", "5", "--loop-spin", "-5us"}, "run: --loop-spin: -5µs is out of range: want from 0s to 10ms"},
		{"loop spin over the bound", []string{"gate", "--loop-spin", "11ms"}, "gate: --loop-spin: 11ms is out of range: want from 0s to 10ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, tt.args...)
			if code != exitUsage || !strings.Contains(stderr, tt.want) {
				t.Errorf("perfgate %s: exit %d, stderr %q; want exit 2 and %q", strings.Join(tt.args, " "), code, stderr, tt.want)
			}
		})
	}
}

// numericFlagRE matches a numeric flag in a command's -h output.
var numericFlagRE = regexp.MustCompile(`(?m)^  -([a-z0-9-]+) (float|int|int64|uint|uint64|duration)$`)

// Every numeric flag of every command has a range in flagRanges: a flag
// added without one fails here.
func TestEveryNumericFlagHasRange(t *testing.T) {
	have := map[string]bool{}
	for _, f := range flagRanges() {
		have[f.cmd+" --"+f.flag] = true
	}
	for _, cmd := range [][]string{{"run"}, {"size"}, {"compare"}, {"fixture", "serve"}, {"gpu-sample"}, {"demo"}, {"gate"}, {"baseline", "update"}, {"action"}} {
		_, stdout, stderr := runCLI(t, append(cmd, "-h")...)
		for _, m := range numericFlagRE.FindAllStringSubmatch(stdout+stderr, -1) {
			if key := strings.Join(cmd, " ") + " --" + m[1]; !have[key] {
				t.Errorf("perfgate %s: numeric flag with no range: add it to flagRanges (and run go test -update-ranges)", key)
			}
		}
	}
}

// docs/config-ranges.md is generated from config.Bounds and flagRanges.
func TestConfigRangesDoc(t *testing.T) {
	var b strings.Builder
	b.WriteString(`# Ranges of every number perfgate reads

perfgate refuses absurd input before anything starts: a number outside its
range, in perfgate.yaml or on the command line, is an error naming the key
(or the flag), the value and the range, and perfgate exits 2. NaN and
infinities are never in a range. A key left out takes its default (the
last column); a zero written out is checked like any other value, so
` + "`duration: 0s`" + ` is refused rather than silently becoming 30s.

This file is generated from ` + "`config.Bounds`" + ` and ` + "`flagRanges`" + ` in
` + "`cmd/perfgate/flagranges.go`" + `: after changing a range, run
` + "`go test ./cmd/perfgate -run ConfigRangesDoc -update-ranges`" + `.

## perfgate.yaml

Keys under ` + "`load.`" + ` are ` + "`scenarios[].load.`" + `; ` + "`scenarios.`" + ` are keys of each scenario;
` + "`targets.`" + ` are keys of each target.

| key | range | flag | left out or 0 |
| --- | --- | --- | --- |
`)
	for _, bd := range config.Bounds() {
		flagCol := ""
		if bd.Flag != "" {
			flagCol = "`--" + bd.Flag + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", bd.Key, bd.Range, flagCol, bd.Zero)
	}
	b.WriteString("\n## Command-line flags\n\n| command | flag | range |\n| --- | --- | --- |\n")
	for _, f := range flagRanges() {
		fmt.Fprintf(&b, "| %s | `--%s` | %s |\n", f.cmd, f.flag, f.r)
	}
	path := filepath.Join("..", "..", "docs", "config-ranges.md")
	if *updateRanges {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run ConfigRangesDoc -update-ranges)", err)
	}
	if d := cmp.Diff(string(want), b.String()); d != "" {
		t.Errorf("docs/config-ranges.md is out of date; run go test ./cmd/perfgate -run ConfigRangesDoc -update-ranges (-want +got):\n%s", d)
	}
}
