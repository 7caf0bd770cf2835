package result

import (
	"fmt"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram bounds: 1 µs to 1 hour at 3 significant digits. Values above
// the top are clamped to it so that a stalled request is never dropped.
const (
	HistMinUs   = 1
	HistMaxUs   = int64(time.Hour / time.Microsecond)
	HistSigFigs = 3
)

// NewHistogram returns an empty latency histogram in microseconds.
func NewHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(HistMinUs, HistMaxUs, HistSigFigs)
}

// RecordDuration records d in microseconds, clamped to the histogram's range.
func RecordDuration(h *hdrhistogram.Histogram, d time.Duration) {
	us := d.Microseconds()
	if us < HistMinUs {
		us = HistMinUs
	}
	if us > HistMaxUs {
		us = HistMaxUs
	}
	_ = h.RecordValue(us) // cannot fail: the value is in range
}

// EncodeHistogram encodes h in HdrHistogram's V2 compressed base64 form.
func EncodeHistogram(h *hdrhistogram.Histogram) (string, error) {
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return "", fmt.Errorf("encoding histogram: %w", err)
	}
	return string(b), nil
}

// DecodeHistogram decodes a V2 compressed base64 histogram. Malformed
// input is an error, never a panic (hdrhistogram-go's Decode panics on
// some short payloads).
func DecodeHistogram(s string) (h *hdrhistogram.Histogram, err error) {
	if s == "" {
		return nil, fmt.Errorf("empty histogram")
	}
	defer func() {
		if p := recover(); p != nil {
			h, err = nil, fmt.Errorf("decoding histogram: malformed data (%v)", p)
		}
	}()
	// The headers first: Decode allocates whatever they ask for.
	if err := checkHistogram(s); err != nil {
		return nil, err
	}
	h, err = hdrhistogram.Decode([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("decoding histogram: %w", err)
	}
	return h, nil
}

// Merge adds src into dst and reports values that did not fit as an error,
// so a lossy merge is never silent.
func Merge(dst, src *hdrhistogram.Histogram) error {
	if dropped := dst.Merge(src); dropped > 0 {
		return fmt.Errorf("histogram merge dropped %d values", dropped)
	}
	return nil
}

// LatencyOf summarizes h (µs) as milliseconds. ValueAtQuantile takes a
// percent (99, not 0.99).
func LatencyOf(h *hdrhistogram.Histogram) Latency {
	if h == nil || h.TotalCount() == 0 {
		return Latency{}
	}
	ms := func(us int64) float64 { return float64(us) / 1000 }
	return Latency{
		P50:  ms(h.ValueAtQuantile(50)),
		P90:  ms(h.ValueAtQuantile(90)),
		P99:  ms(h.ValueAtQuantile(99)),
		P999: ms(h.ValueAtQuantile(99.9)),
		Max:  ms(h.Max()),
		Mean: h.Mean() / 1000,
	}
}

// MergeTrials decodes and merges the latency histograms of trials.
func MergeTrials(trials []Trial) (*hdrhistogram.Histogram, error) {
	all := NewHistogram()
	for i, t := range trials {
		h, err := DecodeHistogram(t.Histogram)
		if err != nil {
			return nil, fmt.Errorf("trial %d: %w", i+1, err)
		}
		if err := Merge(all, h); err != nil {
			return nil, fmt.Errorf("trial %d: %w", i+1, err)
		}
	}
	return all, nil
}
