package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Kind says what a Range's numbers are and how they are written.
type Kind int

// The kinds of numeric settings.
const (
	// Number is a real number, finite.
	Number Kind = iota
	// Integer is a whole number.
	Integer
	// Span is a Go duration; the bounds are in nanoseconds.
	Span
	// Fraction is a percentage string ("5%") held as a fraction (0.05).
	Fraction
)

// Range is the interval a numeric setting must lie in: from Min (excluded
// when MinOpen) to Max, both included otherwise. NaN and infinities are
// never in a range. Limits are there to refuse absurd input before
// anything starts (a rate of 1e12, a billion connections, 5000 trials),
// not to second-guess a real measurement: each is far above what a
// single runner can do.
type Range struct {
	Min, Max float64
	MinOpen  bool
	// MaxOpen excludes Max itself (a repeat fraction below 100%).
	MaxOpen bool
	Kind    Kind
	// Unit follows the numbers in messages ("requests per second").
	Unit string
}

// Contains reports whether v lies in r.
func (r Range) Contains(v float64) bool {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return false
	}
	if v < r.Min || (r.MinOpen && v == r.Min) {
		return false
	}
	if r.Kind == Integer && v != math.Trunc(v) {
		return false
	}
	return v < r.Max || (!r.MaxOpen && v == r.Max)
}

// Format writes v as the setting is written: "30s", "5%", "200".
func (r Range) Format(v float64) string {
	switch r.Kind {
	case Span:
		if math.IsNaN(v) || math.Abs(v) > math.MaxInt64 {
			return strconv.FormatFloat(v, 'g', -1, 64) + "ns"
		}
		return shortDuration(time.Duration(v))
	case Fraction:
		return strconv.FormatFloat(v*100, 'g', -1, 64) + "%"
	}
	if math.Abs(v) < 1e21 {
		return strconv.FormatFloat(v, 'f', -1, 64) // 1000000, not 1e+06
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// String describes r: "more than 0 and at most 1000000 requests per
// second", "from 1 to 100".
func (r Range) String() string {
	lo := "from " + r.Format(r.Min)
	if r.MinOpen {
		lo = "more than " + r.Format(r.Min)
	}
	hi := " to " + r.Format(r.Max)
	switch {
	case r.MaxOpen:
		hi = " and less than " + r.Format(r.Max)
	case r.MinOpen:
		hi = " and at most " + r.Format(r.Max)
	}
	s := lo + hi
	if r.Kind == Integer {
		s = "a whole number " + s
	}
	if r.Unit != "" {
		s += " " + r.Unit
	}
	return s
}

// Check returns nil when v is in r, else an error naming the value and
// the range; the caller prefixes the key or the flag.
func (r Range) Check(v float64) error {
	if r.Contains(v) {
		return nil
	}
	return fmt.Errorf("%s is out of range: want %s", r.Format(v), r)
}

// shortDuration is d.String() without trailing zero units: "24h", "1h30m".
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// Bound is a numeric setting of perfgate.yaml with its range.
type Bound struct {
	// Key is the setting's path: "load.rate" is scenarios[].load.rate,
	// "targets.ready_timeout" is targets.NAME.ready_timeout.
	Key string
	// Flag is the command-line flag that sets the same value, if any
	// (perfgate run --url's flags, perfgate size's).
	Flag  string
	Range Range
	// Zero, when set, says what leaving the key out (or 0) means; a zero
	// written explicitly is then allowed even outside Range.
	Zero string
}

// Limits of the settings.
const (
	// MaxRate is the highest rate, in requests per second, a scenario may
	// offer or a sweep may reach.
	MaxRate = 1e6
	// MaxTrials is the most measurement windows a scenario may have.
	MaxTrials = 100
	// MaxABTrials is the most pairs an A/B run measures per scenario.
	MaxABTrials = 200
	// MaxConcurrency bounds load.concurrency and load.connections.
	MaxConcurrency = 100_000
	// MaxDuration bounds every duration setting.
	MaxDuration = 24 * time.Hour
	// MaxTokens bounds prompt_tokens and max_tokens.
	MaxTokens = 1 << 20
	// MaxTensorElements bounds the product of a random tensor's shape.
	MaxTensorElements = 1 << 26
)

// Bounds lists every numeric setting with its range, in file order. The
// reference document docs/config-ranges.md is generated from it.
func Bounds() []Bound {
	dur := func(min time.Duration, open bool) Range {
		return Range{Min: float64(min), Max: float64(MaxDuration), MinOpen: open, Kind: Span}
	}
	rate := Range{Min: 0, Max: MaxRate, MinOpen: true, Unit: "requests per second"}
	return []Bound{
		{Key: "version", Range: Range{Min: 1, Max: 1, Kind: Integer}},
		{Key: "slo.p99", Flag: "slo-p99", Range: dur(0, true), Zero: "no latency objective (a sweep needs one)"},
		{Key: "slo.max_error_rate", Flag: "max-error-rate", Range: Range{Min: 0, Max: 1, Kind: Fraction}},
		{Key: "slo.ttft", Flag: "slo-ttft", Range: dur(0, true), Zero: "no time-to-first-token objective"},
		{Key: "slo.tpot", Flag: "slo-tpot", Range: dur(0, true), Zero: "no time-per-output-token objective"},
		{Key: "capacity.peak_qps", Flag: "peak-qps", Range: Range{Min: 0, Max: 1e9, Unit: "requests per second"}},
		{Key: "capacity.headroom", Flag: "headroom", Range: Range{Min: 1, Max: 100}, Zero: "the default, 1.3"},
		{Key: "capacity.cost_per_instance_hour", Flag: "cost-per-hour", Range: Range{Min: 0, Max: 1e6}},
		// Checked in capacity.go, listed here for the reference.
		{Key: "capacity.lead_time", Flag: "lead-time", Range: dur(0, false), Zero: "sizing's default"},
		{Key: "capacity.scale_in_after", Flag: "scale-in-after", Range: dur(0, false), Zero: "sizing's default"},
		{Key: "gate.p99_regression", Range: Range{Min: 0, Max: 10, MinOpen: true, Kind: Fraction}, Zero: "the default, 5%"},
		{Key: "gate.p99_equivalence", Range: Range{Min: 0, Max: 1, MaxOpen: true, Kind: Fraction}, Zero: "gate.p99_regression's value (at least that when set)"},
		{Key: "gate.p50_regression", Range: Range{Min: 0, Max: 1, MaxOpen: true, Kind: Fraction}, Zero: "the medians reported, not gated"},
		{Key: "gate.server_compute_regression", Range: Range{Min: 0, Max: 1, MaxOpen: true, Kind: Fraction}, Zero: "the server's compute time reported, not gated"},
		{Key: "gate.max_qps_regression", Range: Range{Min: 0, Max: 1, MinOpen: true, Kind: Fraction}, Zero: "the default, 5%"},
		{Key: "gate.run_to_run", Range: Range{Min: 0, Max: 1, MaxOpen: true, Kind: Fraction}, Zero: "no run-to-run noise assumed"},
		{Key: "gate.run_to_run_median", Range: Range{Min: 0, Max: 1, MaxOpen: true, Kind: Fraction}, Zero: "gate.run_to_run's value"},
		{Key: "gate.confidence", Range: Range{Min: 0.5, Max: 0.999, MinOpen: true}, Zero: "the default, 0.95"},
		{Key: "gate.rerun_budget", Range: dur(0, true), Zero: "the default, 10m"},
		{Key: "gate.rerun_max_trials", Range: Range{Min: 1, Max: MaxTrials, Kind: Integer}, Zero: "the default, 4 × the scenario's trials (at most 100)"},
		{Key: "ab.max_trials", Range: Range{Min: 2, Max: MaxABTrials, Kind: Integer, Unit: "pairs"}, Zero: "the default, 20"},
		{Key: "ab.budget", Range: dur(time.Second, false), Zero: "no bound but ab.max_trials"},
		{Key: "loop_batch", Flag: "loop-batch", Range: Range{Min: 0, Max: float64(MaxLoopBatch), Kind: Span}, Zero: "each hit sent when due (left out: 1ms)"},
		{Key: "loop_spin", Flag: "loop-spin", Range: Range{Min: 0, Max: float64(MaxLoopSpin), Kind: Span}, Zero: "off: a loop parks at once (the default)"},
		{Key: "targets.ready_timeout", Range: dur(0, true), Zero: "the default, 60s"},
		// prompt_tokens counts the words of synthetic prompts (its name is
		// kept for v1; the flag is --prompt-words, with --prompt-tokens
		// kept as an alias).
		{Key: "scenarios.prompt_tokens", Flag: "prompt-words", Range: Range{Min: 0, Max: MaxTokens, Kind: Integer, Unit: "words"}, Zero: "the default, 128 words"},
		{Key: "scenarios.max_tokens", Flag: "max-tokens", Range: Range{Min: 0, Max: MaxTokens, Kind: Integer, Unit: "tokens"}, Zero: "the default, 64 tokens"},
		{Key: "scenarios.shape", Flag: "shape", Range: Range{Min: 1, Max: MaxTensorElements, Kind: Integer, Unit: "elements (each dimension, and their product)"}},
		{Key: "scenarios.timeout", Flag: "timeout", Range: dur(0, true), Zero: "the protocol's default, 30s"},
		{Key: "scenarios.restarts", Range: Range{Min: 1, Max: 16, Kind: Integer, Unit: "target processes"}, Zero: "the default: 5 for a target perfgate starts (one process per trial at the default 5 trials), 1 for a url"},
		// Checked in capacity.go (repeat excludes 100%), listed here.
		{Key: "scenarios.repeat", Range: Range{Min: 0, Max: 1, MaxOpen: true, Kind: Fraction}, Zero: "no repeats"},
		{Key: "scenarios.partition.per_device", Range: Range{Min: 1, Max: MaxPartitionsPerDevice, Kind: Integer, Unit: "partitions per device"}},
		{Key: "load.rate", Flag: "rate", Range: rate, Zero: "unset (modes other than rate)"},
		{Key: "load.seed", Flag: "seed", Range: Range{Min: math.MinInt64, Max: math.MaxInt64, Kind: Integer}},
		{Key: "load.concurrency", Flag: "concurrency", Range: Range{Min: 1, Max: MaxConcurrency, Kind: Integer, Unit: "requests in flight"}, Zero: "unset (modes other than concurrency)"},
		{Key: "load.duration", Flag: "duration", Range: dur(0, true), Zero: "the default when left out: 30s (5s for sweep probes); the whole trace for replay"},
		{Key: "load.warmup", Flag: "warmup", Range: dur(0, false)},
		{Key: "load.warmup_max", Range: dur(6*time.Second, false), Zero: "the default, 60s (with warmup: auto)"},
		{Key: "load.duration_max", Range: dur(AutoDurationMin, false), Zero: "the default, 2m (with duration: auto)"},
		{Key: "load.trials", Flag: "trials", Range: Range{Min: 1, Max: MaxTrials, Kind: Integer}, Zero: "the default when left out: 5 (1 for sweep and replay)"},
		{Key: "load.connections", Flag: "connections", Range: Range{Min: 1, Max: MaxConcurrency, Kind: Integer}, Zero: "sized from the load: the concurrency in closed loop; opened as the schedule needs, up to 4096, in open loop"},
		{Key: "load.speed", Flag: "speed", Range: Range{Min: 0, Max: 1000, MinOpen: true}, Zero: "the default, 1"},
		{Key: "load.start", Flag: "start", Range: rate, Zero: "the sweep's default start"},
		{Key: "load.max_rate", Flag: "max-rate", Range: rate, Zero: "no cap below 1000000"},
		{Key: "load.resolution", Range: Range{Min: 0, Max: 1, MinOpen: true, Kind: Fraction}, Zero: "the default, 3%"},
		{Key: "load.budget", Flag: "budget", Range: dur(0, true), Zero: "the default, 5m"},
		{Key: "load.estimates", Flag: "estimates", Range: Range{Min: 1, Max: 20, Kind: Integer, Unit: "knee estimates"}, Zero: "the default, 5 (sweeps)"},
	}
}

// BoundOf returns the bound of key (as in Bound.Key).
func BoundOf(key string) (Bound, bool) {
	for _, b := range Bounds() {
		if b.Key == key {
			return b, true
		}
	}
	return Bound{}, false
}

// BoundOfFlag returns the bound of the setting a command-line flag sets.
func BoundOfFlag(flag string) (Bound, bool) {
	for _, b := range Bounds() {
		if b.Flag == flag {
			return b, true
		}
	}
	return Bound{}, false
}

// checkRange checks the value v of the setting at path, whose bound is
// key. A zero is allowed when the file left the key out and the bound
// says what zero means; a zero written out is checked like any value
// (duration: 0s is a mistake, not "the default").
func (c *Config) checkRange(path, key string, v float64) error {
	b, ok := BoundOf(key)
	if !ok {
		panic("config: no bound for " + key) // a programming error, caught by the tests
	}
	if v == 0 && b.Zero != "" && !c.has(path) {
		return nil
	}
	if err := b.Range.Check(v); err != nil {
		return c.errAt(path, "%v", err)
	}
	return nil
}
