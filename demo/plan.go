package demo

import (
	"slices"
	"time"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/refserver"
	"github.com/perfgate/perfgate/suite"
)

// Source names the demo config in errors: it is embedded in the binary
// (refserver.DemoConfig).
const Source = "refserver/perfgate.yaml (embedded)"

// StartCost is what one start and stop of the reference server costs the
// demo's plan: about twice the time it takes to be ready
// (bench/RESULTS-rules.md#demostartcost); the rest is for stopping it.
const StartCost = 400 * time.Millisecond

// Config parses the embedded demo config, with the short windows of
// --quick (Shrink) when quick.
func Config(quick bool) (*config.Config, error) {
	cfg, err := config.Parse(Source, refserver.DemoConfig())
	if err != nil {
		return nil, err
	}
	if quick {
		Shrink(cfg)
	}
	return cfg, nil
}

// Planned is the demo's planned time: the sum of its scenarios' (only
// those named in only, when it is not empty) suite.PlannedDuration.
func Planned(cfg *config.Config, only []string) time.Duration {
	var d time.Duration
	for _, s := range cfg.Scenarios {
		if len(only) == 0 || slices.Contains(only, s.Name) {
			d += suite.PlannedDuration(s, StartCost)
		}
	}
	return d
}

// Shrink makes the demo's windows short for --quick: about a minute and a
// half in all, with wider intervals, and still as many trials as the gate
// accepts.
func Shrink(cfg *config.Config) {
	for _, s := range cfg.Scenarios {
		l := &s.Load
		if l.Mode == "sweep" {
			l.Duration, l.Warmup, l.Budget = config.Duration(600*time.Millisecond), config.Duration(200*time.Millisecond), config.Duration(12*time.Second)
			continue
		}
		l.Duration, l.Warmup = config.Duration(500*time.Millisecond), config.Duration(100*time.Millisecond)
		// As few trials as the gate accepts: 4 for one gated latency
		// test, 5 for streaming (three share α), so the config the quick
		// demo writes can still gate.
		tests := 1
		if s.Protocol == "openai" {
			tests = 3
		}
		l.Trials = compare.MinTrials(cfg.Gate.Confidence, tests)
	}
}
