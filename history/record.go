package history

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/internal/stat"
	"github.com/perfgate/perfgate/result"
)

// Schema is the schema tag of a history record.
const Schema = "perfgate.history/v1"

// Metric names, as the comparison names them.
const (
	MetricP50       = "p50_ms"
	MetricP99       = "p99_ms"
	MetricP999      = "p999_ms"
	MetricRPS       = "achieved_rps"
	MetricErrorRate = "error_rate"
	MetricMaxQPS    = "max_qps"
	MetricTTFTP99   = "ttft_p99_ms"
	MetricTPOTP99   = "tpot_p99_ms"
	MetricTokensPS  = "output_tokens_per_s"
)

// HigherIsBetter reports whether a larger value of metric is an
// improvement (throughputs), as opposed to latencies and error rates.
func HigherIsBetter(metric string) bool {
	switch metric {
	case MetricRPS, MetricMaxQPS, MetricTokensPS:
		return true
	}
	return false
}

// Record is one scenario of one stored run: a line of a history file.
type Record struct {
	Schema   string    `json:"schema"`
	Scenario string    `json:"scenario"`
	Commit   string    `json:"commit,omitempty"`
	Ref      string    `json:"ref,omitempty"`
	Date     time.Time `json:"date"`
	// Baseline is true when the run was stored as the baseline (baseline
	// update, the Action's baseline mode); false for a record added by
	// hand (history add).
	Baseline bool `json:"baseline,omitempty"`
	// Runner is the short hash of Environment (FingerprintID): series and
	// the noise learned from them are per runner.
	Runner      string             `json:"runner"`
	Environment result.Fingerprint `json:"environment"`
	ConfigHash  string             `json:"config_hash,omitempty"`
	Perfgate    string             `json:"perfgate,omitempty"`
	Load        result.Load        `json:"load"`
	Simulated   bool               `json:"simulated,omitempty"`
	// Metrics are the run-level values by metric name.
	Metrics map[string]Value `json:"metrics"`
	// Histograms are each process's merged latency histogram (µs, V2
	// compressed base64), in process order; dropped by compaction from
	// old records.
	Histograms []string `json:"histograms,omitempty"`
}

// Value is one metric of one run: the run-level value (of the merged
// trials), the value per process and per trial, and a 95% interval of the
// run-level value from the spread of the units (processes when there are
// two or more, else trials; absent with fewer than two).
type Value struct {
	Value      float64   `json:"value"`
	Lo         float64   `json:"lo,omitempty"`
	Hi         float64   `json:"hi,omitempty"`
	PerProcess []float64 `json:"per_process,omitempty"`
	PerTrial   []float64 `json:"per_trial,omitempty"`
}

// Meta is what a record knows beyond the result: where the run came from.
// Empty fields are taken from the result's git and provenance.
type Meta struct {
	Commit, Ref string
	Date        time.Time
	Baseline    bool
	ConfigHash  string
	Perfgate    string
}

// FingerprintID is a short stable hash of a runner fingerprint: 12 hex
// digits of the SHA-256 of its JSON.
func FingerprintID(f result.Fingerprint) string {
	b, _ := json.Marshal(f) // a struct of strings and ints: cannot fail
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:6])
}

// FromResult makes r's record. Only a valid, complete result makes one.
func FromResult(r *result.Result, m Meta) (Record, error) {
	if !r.Valid || r.Interrupted {
		return Record{}, fmt.Errorf("scenario %q: the run is invalid or interrupted: not recorded", r.Scenario)
	}
	rec := Record{Schema: Schema, Scenario: r.Scenario, Commit: m.Commit, Ref: m.Ref, Date: m.Date,
		Baseline: m.Baseline, ConfigHash: m.ConfigHash, Perfgate: m.Perfgate, Load: r.Load,
		Simulated: r.Simulated, Metrics: map[string]Value{}}
	if p := r.Provenance; p != nil {
		rec.Commit = first(rec.Commit, p.GitSHA)
		rec.Ref = first(rec.Ref, p.GitRef)
		rec.ConfigHash = first(rec.ConfigHash, p.ConfigHash)
		if rec.Date.IsZero() {
			rec.Date = p.StoredAt
		}
	}
	if g := r.Git; g != nil {
		rec.Commit = first(rec.Commit, g.SHA)
		rec.Ref = first(rec.Ref, g.Ref)
	}
	if rec.Date.IsZero() {
		rec.Date = r.StartedAt
	}
	rec.Date = rec.Date.UTC()
	rec.Perfgate = first(rec.Perfgate, r.Environment.Perfgate)
	rec.Environment = result.FingerprintOf(r.Environment)
	rec.Runner = FingerprintID(rec.Environment)

	procs, err := byProcess(r.Trials)
	if err != nil {
		return Record{}, fmt.Errorf("scenario %q: %w", r.Scenario, err)
	}
	sweep := r.Load.Mode == "sweep"
	if !sweep && r.Summary.Latency.P99 > 0 {
		for _, q := range []struct {
			name string
			pct  float64
			of   func(result.Latency) float64
		}{
			{MetricP50, 50, func(l result.Latency) float64 { return l.P50 }},
			{MetricP99, 99, func(l result.Latency) float64 { return l.P99 }},
			{MetricP999, 99.9, func(l result.Latency) float64 { return l.P999 }},
		} {
			v := Value{Value: q.of(r.Summary.Latency)}
			for _, p := range procs {
				v.PerProcess = append(v.PerProcess, float64(p.hist.ValueAtQuantile(q.pct))/1000)
			}
			for _, t := range r.Trials {
				if t.Valid {
					v.PerTrial = append(v.PerTrial, q.of(t.Latency))
				}
			}
			rec.Metrics[q.name] = withInterval(v)
		}
		if len(procs) < 2 {
			// One process: its per-process value is the run's.
			for k, v := range rec.Metrics {
				v.PerProcess = nil
				rec.Metrics[k] = v
			}
		}
	}
	if !sweep {
		v := Value{Value: r.Summary.AchievedRPS}
		e := Value{Value: r.Summary.ErrorRate}
		for _, t := range r.Trials {
			if t.Valid {
				v.PerTrial = append(v.PerTrial, t.AchievedRPS)
				if t.Requests > 0 {
					e.PerTrial = append(e.PerTrial, float64(t.Errors)/float64(t.Requests))
				}
			}
		}
		rec.Metrics[MetricRPS] = withInterval(v)
		rec.Metrics[MetricErrorRate] = e
	}
	if c := r.Capacity; c != nil && c.Found {
		v := Value{Value: compare.KneeQPS(c), PerTrial: append([]float64(nil), c.Estimates...)}
		rec.Metrics[MetricMaxQPS] = withInterval(v)
	}
	if l := r.LLM; l != nil && !sweep {
		add := func(name string, run float64, of func(*result.LLM) float64) {
			if run <= 0 {
				return
			}
			v := Value{Value: run}
			for _, t := range r.Trials {
				if t.Valid && t.LLM != nil {
					v.PerTrial = append(v.PerTrial, of(t.LLM))
				}
			}
			rec.Metrics[name] = withInterval(v)
		}
		add(MetricTTFTP99, l.TTFT.P99, func(x *result.LLM) float64 { return x.TTFT.P99 })
		add(MetricTPOTP99, l.TPOT.P99, func(x *result.LLM) float64 { return x.TPOT.P99 })
		add(MetricTokensPS, l.OutputTokensPerS, func(x *result.LLM) float64 { return x.OutputTokensPerS })
	}
	for _, p := range procs {
		s, err := result.EncodeHistogram(p.hist)
		if err != nil {
			return Record{}, fmt.Errorf("scenario %q: %w", r.Scenario, err)
		}
		rec.Histograms = append(rec.Histograms, s)
	}
	return rec, nil
}

// proc is one target process's trials merged.
type proc struct {
	n    int
	hist *hdrhistogram.Histogram
}

// byProcess merges the valid trials' histograms per process, in process
// order.
func byProcess(trials []result.Trial) ([]proc, error) {
	groups := map[int][]result.Trial{}
	for _, t := range trials {
		if t.Valid && t.Histogram != "" {
			groups[t.Process] = append(groups[t.Process], t)
		}
	}
	keys := make([]int, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	var out []proc
	for _, k := range keys {
		h, err := result.MergeTrials(groups[k])
		if err != nil {
			return nil, fmt.Errorf("process %d: %w", k, err)
		}
		out = append(out, proc{n: k, hist: h})
	}
	return out, nil
}

// withInterval sets v's 95% interval: the run-level value times
// exp(±t·s/√n), where s is the standard deviation of the log unit values
// (processes when there are two or more, else trials) and n their count.
func withInterval(v Value) Value {
	units := v.PerProcess
	if len(units) < 2 {
		units = v.PerTrial
	}
	if len(units) < 2 || v.Value <= 0 {
		return v
	}
	var logs []float64
	for _, u := range units {
		if u > 0 {
			logs = append(logs, math.Log(u))
		}
	}
	if len(logs) < 2 {
		return v
	}
	h := stat.LogHalfWidth(logs, 0.95)
	v.Lo, v.Hi = round4(v.Value*math.Exp(-h)), round4(v.Value*math.Exp(h))
	return v
}

// Encode writes recs as JSON Lines.
func Encode(w io.Writer, recs []Record) error {
	bw := bufio.NewWriter(w)
	for _, r := range recs {
		b, err := json.Marshal(r)
		if err != nil {
			return fmt.Errorf("encoding history record of %q: %w", r.Scenario, err)
		}
		bw.Write(b)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// Decode reads a history file's records. name is used in errors, which
// say name:line: what is wrong. Blank lines are skipped.
func Decode(rd io.Reader, name string) ([]Record, error) {
	return decode(rd, name, nil)
}

// decode is Decode calling check (when not nil) on each record as it is
// read, stopping at its first error.
func decode(rd io.Reader, name string, check func(Record) error) ([]Record, error) {
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 0, 64<<10), maxLineBytes)
	var out []Record
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var r Record
		dec := json.NewDecoder(bytes.NewReader(b))
		if err := dec.Decode(&r); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, line, err)
		}
		if dec.More() {
			return nil, fmt.Errorf("%s:%d: trailing data after the record", name, line)
		}
		if r.Schema != Schema {
			return nil, fmt.Errorf("%s:%d: schema is %q, want %q", name, line, r.Schema, Schema)
		}
		if r.Scenario == "" {
			return nil, fmt.Errorf("%s:%d: record without a scenario", name, line)
		}
		if check != nil {
			if err := check(r); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", name, line, err)
			}
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	return out, nil
}

// FileName is the history file of a scenario: result.FileName with
// ".jsonl".
func FileName(scenario string) string {
	return strings.TrimSuffix(result.FileName(scenario), ".json") + ".jsonl"
}

// ErrNoHistory is returned (wrapped) when a history holds no records.
var ErrNoHistory = errors.New("no history")

func first(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// FromResults makes the records of rs; a result FromResult refuses is left
// out and its error returned beside the others' records.
func FromResults(rs []*result.Result, m Meta) ([]Record, []error) {
	var out []Record
	var errs []error
	for _, r := range rs {
		rec, err := FromResult(r, m)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, rec)
	}
	return out, errs
}
