package merge

import (
	"errors"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/perfgate/perfgate/compare/comparetest"
	"github.com/perfgate/perfgate/result"
)

var start = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// shard builds generator i of n's result from its trials' samples (µs).
func shard(t *testing.T, i, n int, samples [][]int64, skew time.Duration) *result.Result {
	t.Helper()
	r := &result.Result{
		Schema: result.Schema, Scenario: "fleet", Layer: "system", Protocol: "http",
		StartedAt: start,
		Load:      result.Load{Mode: "rate", Arrival: "constant", Rate: 3000, DurationS: 10, WarmupS: 2, Trials: len(samples)},
		Valid:     true,
		Generator: &result.Generator{Index: i, Count: n, ConfigHash: "abc", StartedAt: start.Add(skew)},
	}
	all := result.NewHistogram()
	for _, s := range samples {
		h := result.NewHistogram()
		for _, v := range s {
			if err := h.RecordValue(v); err != nil {
				t.Fatal(err)
			}
		}
		enc, err := result.EncodeHistogram(h)
		if err != nil {
			t.Fatal(err)
		}
		all.Merge(h)
		r.Summary.Latency = result.LatencyOf(all)
		// Shard i's trials had i errors besides their len(s) successes.
		r.Trials = append(r.Trials, result.Trial{Requests: int64(len(s) + i), AchievedRPS: float64(len(s)) / 10,
			OfferedRPS: float64(len(s)) / 10, DurationS: 10, Latency: result.LatencyOf(h), Histogram: enc,
			ServiceHistogram: enc, Valid: true, ErrorsBy: map[string]int64{"timeout": int64(i)}, Errors: int64(i)})
		r.Summary.Requests += int64(len(s) + i)
		r.Summary.Errors += int64(i)
		r.Summary.ErrorRate = float64(r.Summary.Errors) / float64(r.Summary.Requests)
		r.Summary.AchievedRPS += float64(len(s)) / 10 / float64(len(samples))
	}
	return r
}

// Merging shard files is exact: every percentile of a merged trial equals
// the percentile of all that trial's samples recorded into one histogram,
// whatever the distribution (random data: lognormal bodies with a heavy
// tail, different on each generator) and however unevenly the samples are
// spread over the shards.
func TestShardsMergeExactly(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	const gens, trials = 3, 4
	samples := make([][][]int64, gens) // [generator][trial][]µs
	want := make([]*hdrhistogram.Histogram, trials)
	for j := range want {
		want[j] = result.NewHistogram()
	}
	dir := t.TempDir()
	var paths []string
	for g := range gens {
		samples[g] = make([][]int64, trials)
		for j := range trials {
			n := 500 + rng.IntN(3000)
			for range n {
				us := int64(math.Exp(math.Log(2000*float64(g+1)) + 0.6*rng.NormFloat64()))
				if rng.Float64() < 0.01 {
					us *= 40 // a tail only some shards have much of
				}
				us = max(us, 1)
				samples[g][j] = append(samples[g][j], us)
				if err := want[j].RecordValue(us); err != nil {
					t.Fatal(err)
				}
			}
		}
		// Through files, as the command does.
		p := filepath.Join(dir, "g"+string(rune('1'+g)), "fleet.json")
		if _, err := WriteDir(filepath.Dir(p), []*result.Result{shard(t, g+1, gens, samples[g], time.Duration(g)*time.Millisecond)}); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, filepath.Dir(p))
	}
	ins, err := Read(paths)
	if err != nil {
		t.Fatal(err)
	}
	// Shards given in reverse order merge the same.
	for i, j := 0, len(ins)-1; i < j; i, j = i+1, j-1 {
		ins[i], ins[j] = ins[j], ins[i]
	}
	rs, err := Gather(ins, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 {
		t.Fatalf("Gather gave %d results, want 1", len(rs))
	}
	m := rs[0]
	all := result.NewHistogram()
	for j, tr := range m.Trials {
		got, err := result.DecodeHistogram(tr.Histogram)
		if err != nil {
			t.Fatal(err)
		}
		if got.TotalCount() != want[j].TotalCount() || tr.Requests != want[j].TotalCount()+6 {
			t.Errorf("trial %d: %d samples, %d requests, want %d and 6 errors more", j+1, got.TotalCount(), tr.Requests, want[j].TotalCount())
		}
		for q := 0.0; q <= 100; q += 0.1 {
			if g, w := got.ValueAtQuantile(q), want[j].ValueAtQuantile(q); g != w {
				t.Fatalf("trial %d: P%.1f = %d µs, want %d µs (one histogram of all samples)", j+1, q, g, w)
			}
		}
		if g, w := tr.Latency, result.LatencyOf(want[j]); g != w {
			t.Errorf("trial %d: latency %+v, want %+v", j+1, g, w)
		}
		if tr.Errors != 1+2+3 || tr.ErrorsBy["timeout"] != 6 {
			t.Errorf("trial %d: errors %d by class %v, want 6 timeouts summed over the shards", j+1, tr.Errors, tr.ErrorsBy)
		}
		all.Merge(want[j])
	}
	if g, w := m.Summary.Latency, result.LatencyOf(all); g != w {
		t.Errorf("summary latency %+v, want %+v", g, w)
	}
	if want := all.TotalCount() + 6*int64(len(m.Trials)); m.Summary.Requests != want {
		t.Errorf("summary requests %d, want %d", m.Summary.Requests, want)
	}
	if m.Merged == nil || m.Merged.Generators != 3 || m.Merged.StartSkewMs != 2 || !m.Valid {
		t.Errorf("merged record %+v valid %v, want 3 generators, a 2 ms skew, valid", m.Merged, m.Valid)
	}
	if m.Generator != nil {
		t.Errorf("the merged result still carries a generator record %+v", m.Generator)
	}
}

// Validity is kept per shard: a merged trial is invalid when any shard's
// was, naming the shard, and a start skew beyond the bound (or the
// warm-up) invalidates the whole result.
func TestShardsValidityAndSkew(t *testing.T) {
	one := [][]int64{{1000, 2000, 3000}, {1500, 2500}}
	tests := []struct {
		name      string
		skew      time.Duration
		maxSkew   time.Duration
		badTrial  bool
		wantValid bool
		wantTrial bool // trial 2 valid
		wantWarn  string
	}{
		{"aligned", 10 * time.Millisecond, 0, false, true, true, ""},
		{"skew over the bound", 150 * time.Millisecond, 0, false, false, true, "started 150.0 ms apart"},
		{"custom bound", 150 * time.Millisecond, 200 * time.Millisecond, false, true, true, ""},
		// The warm-up (2 s) caps any bound: a generator starting after
		// the first trial opened would leave that trial short of load.
		{"bound above the warm-up", 2500 * time.Millisecond, time.Hour, false, false, true, "2000.0 ms allowed"},
		{"one shard's trial invalid", 0, 0, true, true, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := shard(t, 1, 2, one, 0), shard(t, 2, 2, one, tt.skew)
			if tt.badTrial {
				b.Trials[1].Valid = false
				b.Trials[1].Invalid = []string{"achieved 10 rps"}
			}
			m, err := Shards([]*result.Result{a, b}, Options{MaxSkew: tt.maxSkew})
			if err != nil {
				t.Fatal(err)
			}
			if m.Valid != tt.wantValid || m.Trials[1].Valid != tt.wantTrial || !m.Trials[0].Valid {
				t.Errorf("valid %v, trials %v %v; want %v, true, %v", m.Valid, m.Trials[0].Valid, m.Trials[1].Valid, tt.wantValid, tt.wantTrial)
			}
			if tt.badTrial && (len(m.Trials[1].Invalid) != 1 || m.Trials[1].Invalid[0] != "generator 2/2: achieved 10 rps") {
				t.Errorf("invalid reasons %q, want the shard's, naming it", m.Trials[1].Invalid)
			}
			if w := strings.Join(m.Warnings, "\n"); tt.wantWarn != "" && !strings.Contains(w, tt.wantWarn) {
				t.Errorf("warnings %q, want one containing %q", w, tt.wantWarn)
			}
		})
	}
}

// Shards that do not add up to one run are refused with ErrMismatch, with
// a message naming what differs.
func TestShardsRefuse(t *testing.T) {
	one := [][]int64{{1000, 2000}, {1500}}
	tests := []struct {
		name   string
		change func(a, b *result.Result) []*result.Result
		want   string
	}{
		{"different configs", func(a, b *result.Result) []*result.Result {
			b.Generator.ConfigHash = "other"
			return []*result.Result{a, b}
		}, "different configurations"},
		{"different loads", func(a, b *result.Result) []*result.Result {
			b.Load.Rate = 2000
			return []*result.Result{a, b}
		}, "different loads"},
		{"different trial counts", func(a, b *result.Result) []*result.Result {
			b.Trials = b.Trials[:1]
			return []*result.Result{a, b}
		}, "has 2 trials, generator 2 has 1"},
		{"a missing shard", func(a, b *result.Result) []*result.Result {
			return []*result.Result{a}
		}, "generator 2/2 is missing"},
		{"a shard twice", func(a, b *result.Result) []*result.Result {
			b.Generator.Index = 1
			return []*result.Result{a, b}
		}, "appears twice"},
		{"different generator counts", func(a, b *result.Result) []*result.Result {
			b.Generator.Count = 3
			return []*result.Result{a, b}
		}, "shards of 2 and of 3 generators"},
		{"a knee search", func(a, b *result.Result) []*result.Result {
			a.Capacity, b.Capacity = &result.Capacity{}, &result.Capacity{}
			return []*result.Result{a, b}
		}, "knee search"},
		{"different windows", func(a, b *result.Result) []*result.Result {
			b.Trials[0].DurationS = 9
			return []*result.Result{a, b}
		}, "trial 1 lasted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs := tt.change(shard(t, 1, 2, one, 0), shard(t, 2, 2, one, 0))
			_, err := Shards(rs, Options{})
			if !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Shards = %v, want ErrMismatch containing %q", err, tt.want)
			}
		})
	}
}

// Gather keeps whole results, merges shards, and refuses a scenario
// measured twice or parts of different configurations.
func TestGather(t *testing.T) {
	whole := func(name string, part *result.Part) Input {
		r := shard(t, 1, 1, [][]int64{{1000}}, 0)
		r.Scenario, r.Generator, r.Part = name, nil, part
		return Input{Path: name + ".json", Result: r}
	}
	p := func(i int, hash string) *result.Part { return &result.Part{Index: i, Count: 2, ConfigHash: hash} }
	tests := []struct {
		name  string
		ins   []Input
		names []string
		err   string
	}{
		{"parts gathered", []Input{whole("b", p(2, "h")), whole("a", p(1, "h"))}, []string{"a", "b"}, ""},
		{"a scenario twice", []Input{whole("a", p(1, "h")), whole("a", p(2, "h"))}, nil, "measured in both"},
		{"parts of different configs", []Input{whole("a", p(1, "h")), whole("b", p(2, "other"))}, nil, "different partitions or configurations"},
		{"shards beside a whole result", []Input{whole("fleet", nil), {Path: "g1", Result: shard(t, 1, 1, [][]int64{{1}}, 0)}}, nil, "a whole result, yet generator shards"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs, err := Gather(tt.ins, Options{})
			if tt.err != "" {
				if !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("Gather = %v, want ErrMismatch containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range rs {
				got = append(got, r.Scenario)
			}
			if strings.Join(got, ",") != strings.Join(tt.names, ",") {
				t.Errorf("scenarios %v, want %v", got, tt.names)
			}
		})
	}
}

// Streaming figures merge exactly too: a merged trial's TTFT and TPOT
// histograms are the sum of the shards', and the rates add.
func TestShardsMergeLLM(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	var shards []*result.Result
	for i := 1; i <= 2; i++ {
		r := comparetest.Result(comparetest.Spec{Scenario: "llm", Trials: 3, Requests: 400, MedianMs: 30, Streaming: true}, rng)
		r.Generator = &result.Generator{Index: i, Count: 2, ConfigHash: "h", StartedAt: start}
		shards = append(shards, r)
	}
	m, err := Shards(shards, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for j, tr := range m.Trials {
		want := result.NewHistogram()
		var rate float64
		for _, s := range shards {
			h, err := result.DecodeHistogram(s.Trials[j].LLM.TTFTHistogram)
			if err != nil {
				t.Fatal(err)
			}
			want.Merge(h)
			rate += s.Trials[j].LLM.OutputTokensPerS
		}
		if g, w := tr.LLM.TTFT, result.LatencyOf(want); g != w {
			t.Errorf("trial %d: TTFT %+v, want %+v", j+1, g, w)
		}
		if tr.LLM.OutputTokensPerS != rate {
			t.Errorf("trial %d: %.1f tokens/s, want the shards' sum %.1f", j+1, tr.LLM.OutputTokensPerS, rate)
		}
	}
	if m.LLM == nil || m.LLM.TTFTHistogram != "" || m.LLM.TTFT.P99 == 0 {
		t.Errorf("summary LLM %+v: want merged figures without histograms", m.LLM)
	}
}

// A knee search in which no probe met the SLO keeps no trial; a matrix
// part that measured one still gathers it, as the in-process gate would
// evaluate it.
func TestReadKneeWithoutTrials(t *testing.T) {
	dir := t.TempDir()
	r := &result.Result{Schema: result.Schema, Scenario: "knee", Layer: "service", Protocol: "http", Valid: true,
		Load:     result.Load{Mode: "sweep"},
		Capacity: &result.Capacity{SLOP99Ms: 60, Found: false, Windows: 4, Stopped: "time budget"}}
	if _, err := WriteDir(dir, []*result.Result{r}); err != nil {
		t.Fatal(err)
	}
	ins, err := Read([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	rs, err := Gather(ins, Options{})
	if err != nil || len(rs) != 1 || rs[0].Capacity == nil {
		t.Errorf("Gather = %v, %v; want the knee result", rs, err)
	}
}
