package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"regexp"
	"strings"
	"time"

	"github.com/perfgate/perfgate/config"
)

// flagRange is a numeric flag of a command with its range.
type flagRange struct {
	cmd, flag string
	r         config.Range
}

// flagRanges lists every numeric flag of every command with its range:
// the flags that set a perfgate.yaml key take the key's range
// (config.Bounds), the others are listed here. docs/config-ranges.md is
// generated from this table and config.Bounds, and a test checks that
// every numeric flag a command declares is in it.
func flagRanges() []flagRange {
	var out []flagRange
	for _, b := range config.Bounds() {
		switch b.Flag {
		case "":
		case "peak-qps", "headroom", "cost-per-hour", "lead-time", "scale-in-after":
			out = append(out, flagRange{"size", b.Flag, b.Range})
		case "loop-batch", "loop-spin":
			out = append(out, flagRange{"run", b.Flag, b.Range}, flagRange{"gate", b.Flag, b.Range})
		default:
			out = append(out, flagRange{"run", b.Flag, b.Range})
		}
	}
	cost, _ := config.BoundOfFlag("cost-per-hour")
	dur := func(min, max time.Duration, open bool) config.Range {
		return config.Range{Min: float64(min), Max: float64(max), MinOpen: open, Kind: config.Span}
	}
	whole := func(min, max float64) config.Range { return config.Range{Min: min, Max: max, Kind: config.Integer} }
	anyUint := whole(0, math.MaxUint64)
	words, _ := config.BoundOfFlag("prompt-words")
	return append(out,
		// The old name of --prompt-words, which always counted words.
		flagRange{"run", "prompt-tokens", words.Range},
		flagRange{"size", "cost-per-instance-hour", cost.Range},
		// -1, the default, means the measured hit rate; given, 0 to 1.
		flagRange{"size", "hit-rate", config.Range{Min: 0, Max: 1}},
		flagRange{"compare", "confidence", config.Range{Min: 0.5, Max: 0.999}},
		flagRange{"compare", "resamples", whole(100, 1_000_000)},
		flagRange{"compare", "seed", anyUint},
		flagRange{"fixture serve", "seed", anyUint},
		flagRange{"fixture serve", "max-batch", whole(0, 1024)},
		flagRange{"fixture serve", "batch-window", dur(0, time.Minute, false)},
		flagRange{"fixture serve", "batch-overhead", dur(0, time.Minute, false)},
		flagRange{"fixture serve", "item-overhead", dur(0, time.Minute, false)},
		flagRange{"fixture serve", "instances", whole(0, 256)},
		flagRange{"fixture serve", "queue", whole(0, 1<<20)},
		flagRange{"fixture serve", "cache-entries", whole(0, 1<<20)},
		flagRange{"fixture serve", "sim-fixed", dur(0, time.Minute, false)},
		flagRange{"fixture serve", "sim-per-item", dur(0, time.Minute, false)},
		flagRange{"fixture serve", "int8-factor", config.Range{Min: 0, Max: 10}},
		flagRange{"fixture serve", "llm-max-seqs", whole(0, 4096)},
		flagRange{"fixture serve", "max-num-seqs", whole(0, 4096)},
		flagRange{"fixture serve", "max-num-batched-tokens", whole(0, 1<<20)},
		flagRange{"fixture serve", "llm-step", dur(0, time.Minute, false)},
		flagRange{"fixture serve", "llm-step-per-seq", dur(0, time.Minute, false)},
		flagRange{"fixture serve", "llm-prefill-per-token", dur(0, time.Minute, false)},
		flagRange{"fixture serve", "llm-max-tokens", whole(0, 1<<16)},
		flagRange{"gpu-sample", "duration", dur(0, config.MaxDuration, true)},
		flagRange{"gpu-sample", "interval", dur(0, time.Hour, true)},
	)
}

// checkFlagRanges checks the numeric flags given on the command line (or,
// for fixture serve, from FIXTURE_* variables) against their ranges: a
// value outside is a usage error naming the flag, the value and the
// range, before anything starts.
func checkFlagRanges(cmd string, fs *flag.FlagSet) error {
	ranges := map[string]config.Range{}
	for _, f := range flagRanges() {
		if f.cmd == cmd {
			ranges[f.flag] = f.r
		}
	}
	var err error
	fs.Visit(func(f *flag.Flag) {
		r, ok := ranges[f.Name]
		if !ok || err != nil {
			return
		}
		var vals []float64
		switch v := f.Value.(flag.Getter).Get().(type) {
		case float64:
			vals = []float64{v}
		case int:
			vals = []float64{float64(v)}
		case int64:
			vals = []float64{float64(v)}
		case uint64:
			vals = []float64{float64(v)}
		case time.Duration:
			vals = []float64{float64(v)}
		case string:
			if r.Kind == config.Fraction {
				p, perr := config.ParsePercent(v)
				if perr != nil {
					err = usageErr("%s: --%s: %v", cmd, f.Name, perr)
					return
				}
				vals = []float64{p}
			}
			// Lists such as --shape 1,16 are checked with the config they
			// build (see flagError).
		}
		for _, v := range vals {
			if cerr := r.Check(v); cerr != nil {
				err = usageErr("%s: --%s: %v", cmd, f.Name, cerr)
				return
			}
		}
	})
	return err
}

// keyIndexRE matches the list indexes of a key path.
var keyIndexRE = regexp.MustCompile(`\[\d+\]`)

// flagError rewrites an error of the configuration built from run's flags
// so that it names the flag, not the key the flag set:
// "scenarios[0].load.rate: …" becomes "run: --rate: …".
func flagError(err error) error {
	var ce *config.Error
	if !errors.As(err, &ce) || ce.Key == "" {
		return err
	}
	key := keyIndexRE.ReplaceAllString(ce.Key, "")
	if strings.HasPrefix(key, "scenarios.load.") {
		key = strings.TrimPrefix(key, "scenarios.")
	}
	if b, ok := config.BoundOf(key); ok && b.Flag != "" {
		return fmt.Errorf("run: --%s: %s", b.Flag, ce.Msg)
	}
	if f, ok := keyFlags[key]; ok {
		return fmt.Errorf("run: --%s: %s", f, ce.Msg)
	}
	return err
}

// keyFlags are the flags of `run --url` that set a non-numeric scenario
// key, so that an error about the key names the flag the user typed.
var keyFlags = map[string]string{
	"scenarios.model": "model", "scenarios.url": "url", "scenarios.protocol": "protocol",
	"scenarios.endpoint": "endpoint", "scenarios.method": "method", "scenarios.body": "body",
	"scenarios.dataset": "dataset", "scenarios.layer": "layer", "scenarios.client": "client",
	"scenarios.datatype": "datatype", "scenarios.headers": "header",
	"load.arrival": "arrival", "load.trace": "trace", "load.mode": "rate, --concurrency, --sweep or --trace",
	"slo.p99": "slo-p99",
}
