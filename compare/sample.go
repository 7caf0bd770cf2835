package compare

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/perfgate/perfgate/result"
)

// quantSet holds several histograms as cumulative counts over one common
// grid of bucket values, so that the quantile of any weighted merge of them
// (a bootstrap resample) costs a binary search instead of a histogram merge.
// The quantile it returns equals what hdrhistogram-go's ValueAtQuantile
// gives on the merged histogram: the top of the first bucket whose
// cumulative count reaches round(q·total), at least 1.
type quantSet struct {
	grid   []int64   // bucket tops (µs) present in any histogram, ascending
	cum    [][]int64 // cum[h][g]: values of histogram h at or below grid[g]
	totals []int64
}

// newQuantSet lays hists out over their common grid. Each histogram's
// distribution is read once.
func newQuantSet(hists []*hdrhistogram.Histogram) *quantSet {
	bars := make([][]bar, len(hists))
	for i, h := range hists {
		bars[i] = nonEmptyBars(h)
	}
	s := &quantSet{grid: unionOfTops(bars), cum: make([][]int64, len(hists)), totals: make([]int64, len(hists))}
	for i, bs := range bars {
		c := make([]int64, len(s.grid))
		var run int64
		k := 0
		for g, v := range s.grid {
			for k < len(bs) && bs[k].to <= v {
				run += bs[k].count
				k++
			}
			c[g] = run
		}
		s.cum[i] = c
		s.totals[i] = run
	}
	return s
}

// unionOfTops returns every bar's top in ascending order, each once. Each
// histogram's bars are ascending already, so the lists are merged in
// pairs, round by round (n log k for k lists of n tops in all), instead
// of sorting their concatenation.
func unionOfTops(bars [][]bar) []int64 {
	lists := make([][]int64, len(bars))
	for i, bs := range bars {
		l := make([]int64, len(bs))
		for j, b := range bs {
			l[j] = b.to
		}
		lists[i] = l
	}
	for len(lists) > 1 {
		next := lists[:0:0]
		for i := 0; i+1 < len(lists); i += 2 {
			next = append(next, mergeAscending(lists[i], lists[i+1]))
		}
		if len(lists)%2 == 1 {
			next = append(next, lists[len(lists)-1])
		}
		lists = next
	}
	if len(lists) == 0 {
		return nil
	}
	return lists[0]
}

// mergeAscending merges two ascending lists of distinct values into one,
// a value in both kept once.
func mergeAscending(a, b []int64) []int64 {
	out := make([]int64, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			out = append(out, a[i])
			i++
		case b[j] < a[i]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i, j = i+1, j+1
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// quantile returns the pct-th percentile (ms) of the merge in which
// histogram i counts w[i] times, or NaN when that merge is empty.
func (s *quantSet) quantile(w []int, pct float64) float64 {
	var total int64
	for i, k := range w {
		total += int64(k) * s.totals[i]
	}
	if total == 0 {
		return math.NaN()
	}
	target := int64(pct/100*float64(total) + 0.5)
	if target < 1 {
		target = 1
	}
	g := sort.Search(len(s.grid), func(g int) bool {
		var c int64
		for i, k := range w {
			if k != 0 {
				c += int64(k) * s.cum[i][g]
			}
		}
		return c >= target
	})
	if g == len(s.grid) {
		g--
	}
	return float64(s.grid[g]) / 1000
}

// side is one result prepared for comparison: its valid trials' values,
// histograms decoded once.
type side struct {
	res     *result.Result
	lat     []*hdrhistogram.Histogram // per valid trial with requests
	latProc []int                     // the target process of each lat (1 when unknown)
	ttft    []*hdrhistogram.Histogram // nil unless every valid trial has one
	tpot    []*hdrhistogram.Histogram
	errs    []int64 // per valid trial
	reqs    []int64
	tokens  []float64 // output tokens/s per valid trial, when streaming
	goodput []float64
	strProc []int // the target process of each streaming trial (tokens, ttft, tpot)
	// compute is the server's mean compute time per request of each valid
	// trial (Telemetry.ServerMs.Compute), computeProc its target process;
	// nil unless every valid trial has it.
	compute     []float64
	computeProc []int
	trials      int // valid trials
	notes       []Note
	broken      string // why the result cannot be compared at all
}

// leftOut reports whether trial t is left out of every comparison: the
// load generator, not the target, limited its window, so its figures
// measure perfgate. A trial flagged because the target fell behind the
// offered load is kept (see prepare).
func leftOut(t *result.Trial) bool { return !t.Valid && t.GeneratorLimited }

// prepare decodes r's valid trials: who is "baseline", "candidate" or
// "rung" (then rung names it). A trial whose histogram does not decode
// makes the whole result unusable (broken), since it should have been
// rejected when read.
func prepare(r *result.Result, who, rung string) *side {
	s := &side{res: r}
	streaming := r.LLM != nil
	for i, t := range r.Trials {
		n := i + 1
		if !t.Valid {
			why := "marked invalid"
			if len(t.Invalid) > 0 {
				why = strings.Join(t.Invalid, "; ")
			}
			if leftOut(&t) {
				s.notes = append(s.notes, Note{Code: NoteTrialLeftOut, Side: who, Scenario: rung, Trial: n, Text: why})
				continue
			}
			// The target fell behind the offered load: that is the very
			// thing a gate must see, so the trial is kept (its latency,
			// counted from the intended send time, shows the backlog).
			s.notes = append(s.notes, Note{Code: NoteTrialFlagged, Side: who, Scenario: rung, Trial: n, Text: why})
		}
		s.trials++
		if c := serverComputeOf(&t); c > 0 && (s.compute != nil || s.trials == 1) {
			s.compute = append(s.compute, c)
			s.computeProc = append(s.computeProc, max(t.Process, 1))
		} else {
			s.compute, s.computeProc = nil, nil
		}
		s.errs = append(s.errs, t.Errors)
		s.reqs = append(s.reqs, t.Requests)
		if h, err := result.DecodeHistogram(t.Histogram); err != nil {
			s.broken = fmt.Sprintf("%s trial %d: %v", strings.TrimSpace(who+" "+rung), n, err)
			return s
		} else if h.TotalCount() > 0 {
			s.lat = append(s.lat, h)
			s.latProc = append(s.latProc, max(t.Process, 1))
		} else {
			s.notes = append(s.notes, Note{Code: NoteTrialNoRequests, Side: who, Scenario: rung, Trial: n})
		}
		if streaming {
			if t.LLM == nil {
				streaming = false
				s.notes = append(s.notes, Note{Code: NoteTrialNoStreaming, Side: who, Scenario: rung, Trial: n})
				continue
			}
			s.tokens = append(s.tokens, t.LLM.OutputTokensPerS)
			s.goodput = append(s.goodput, t.LLM.GoodputRPS)
			s.strProc = append(s.strProc, max(t.Process, 1))
			s.ttft = appendHist(s.ttft, t.LLM.TTFTHistogram)
			s.tpot = appendHist(s.tpot, t.LLM.TPOTHistogram)
		}
	}
	if !streaming {
		s.tokens, s.goodput, s.ttft, s.tpot = nil, nil, nil, nil
	}
	if len(s.ttft) != len(s.tokens) {
		s.ttft = nil
	}
	if len(s.tpot) != len(s.tokens) {
		s.tpot = nil
	}
	return s
}

// appendHist decodes enc and appends it when it holds values; a missing or
// undecodable one leaves hs short, which disables that metric.
func appendHist(hs []*hdrhistogram.Histogram, enc string) []*hdrhistogram.Histogram {
	h, err := result.DecodeHistogram(enc)
	if err != nil || h.TotalCount() == 0 {
		return hs
	}
	return append(hs, h)
}

// resampler draws bootstrap weights: each side's trials drawn with
// replacement, as many as it has.
type resampler struct{ rng *rand.Rand }

// newResampler seeds a generator from the settings' seed and a label (the
// scenario), so that each scenario's intervals do not depend on which other
// scenarios were compared.
func newResampler(seed uint64, label string) *resampler {
	var h uint64 = 14695981039346656037
	for i := 0; i < len(label); i++ {
		h ^= uint64(label[i])
		h *= 1099511628211
	}
	return &resampler{rng: rand.New(rand.NewPCG(seed, h))}
}

// draw fills w[off:off+n] with the counts of n draws from n items.
func (r *resampler) draw(w []int, off, n int) {
	for i := off; i < off+n; i++ {
		w[i] = 0
	}
	for range n {
		w[off+r.rng.IntN(n)]++
	}
}
