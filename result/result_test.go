package result

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/google/go-cmp/cmp"
)

func TestHistogramRoundTrip(t *testing.T) {
	h := NewHistogram()
	for i := 1; i <= 10000; i++ {
		RecordDuration(h, time.Duration(i)*time.Microsecond)
	}
	RecordDuration(h, 2*time.Hour) // clamped to the top, not dropped
	enc, err := EncodeHistogram(h)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(enc, "HISTF") {
		t.Errorf("encoding %q… is not HdrHistogram's V2 compressed base64", enc[:10])
	}
	got, err := DecodeHistogram(enc)
	if err != nil {
		t.Fatal(err)
	}
	if got.TotalCount() != 10001 {
		t.Errorf("decoded count = %d, want 10001", got.TotalCount())
	}
	if d := cmp.Diff(LatencyOf(h), LatencyOf(got)); d != "" {
		t.Errorf("decoded latency (-want +got):\n%s", d)
	}
	// ValueAtQuantile takes a percent: P50 of 1..10000 µs is about 5 ms.
	if p50 := LatencyOf(h).P50; p50 < 4.9 || p50 > 5.1 {
		t.Errorf("P50 = %v ms, want about 5", p50)
	}
}

func TestDecodeHistogramMalformed(t *testing.T) {
	for _, in := range []string{"", "HISTFAAAAB", "not base64!", "HISTFAAAACh4nJNpmSzMwMDAxAABzFCaEUoz2X+AsQA"} {
		if _, err := DecodeHistogram(in); err == nil {
			t.Errorf("DecodeHistogram(%q) succeeded, want an error", in)
		}
	}
}

// Merge's dropped values (outside the destination's range) are an error,
// never lost silently.
func TestMergeReportsDropped(t *testing.T) {
	all := NewHistogram()
	src := NewHistogram()
	RecordDuration(src, time.Second)
	if err := Merge(all, src); err != nil {
		t.Errorf("merging within range: %v", err)
	}
	narrow := hdrhistogram.New(1, 1000, 3) // up to 1 ms
	if err := Merge(narrow, src); err == nil || !strings.Contains(err.Error(), "dropped 1") {
		t.Errorf("Merge into a narrower histogram = %v, want dropped 1", err)
	}
}

// A failed write leaves the earlier file as it was and no temporary behind.
func TestWriteFileAtomicKeepsOldOnFailure(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "baseline.json")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("disk full")
	err := WriteFileAtomic(p, func(w io.Writer) error {
		w.Write([]byte("half"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want %v", err, boom)
	}
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Errorf("file = %q after a failed write, want %q", b, "old")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d entries in the folder, want only the original", len(ents))
	}
}

func TestResultRoundTrip(t *testing.T) {
	r := &Result{Schema: Schema, Scenario: "s", Protocol: "http", Valid: true,
		Trials: []Trial{{Requests: 3, Valid: true}}}
	var buf bytes.Buffer
	if err := r.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), `"capacity"`) || strings.Contains(buf.String(), `"llm"`) {
		t.Errorf("absent parts were written:\n%s", buf.String())
	}
	got, err := Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(r, got); d != "" {
		t.Errorf("round trip (-want +got):\n%s", d)
	}
	if _, err := Decode(strings.NewReader(`{"schema":"perfgate.result/v2"}`)); err == nil {
		t.Error("decoded an unknown schema")
	}
}

// FuzzDecodeHistogram: no input may panic the decoder.
func FuzzDecodeHistogram(f *testing.F) {
	h := NewHistogram()
	RecordDuration(h, time.Millisecond)
	enc, _ := EncodeHistogram(h)
	f.Add(enc)
	f.Add("HISTFAAAAB")
	f.Fuzz(func(t *testing.T, s string) {
		if h, err := DecodeHistogram(s); err == nil {
			if _, err := EncodeHistogram(h); err != nil {
				t.Errorf("decoded histogram does not encode again: %v", err)
			}
		}
	})
}

// A histogram whose header asks for a huge counts array is refused before
// anything is allocated for it; perfgate's own shape decodes.
func TestDecodeHistogramBoundsAllocation(t *testing.T) {
	if got, want := countsLen(HistMinUs, HistMaxUs, HistSigFigs), len(NewHistogram().Export().Counts); got != want {
		t.Fatalf("countsLen(perfgate's shape) = %d, want %d as hdrhistogram-go allocates", got, want)
	}
	for _, sh := range []struct {
		low, high int64
		digits    int
	}{{1, 1 << 62, 5}, {1, 1000, 2}, {1000, 1 << 40, 3}} {
		if got, want := countsLen(sh.low, sh.high, sh.digits), len(hdrhistogram.New(sh.low, sh.high, sh.digits).Export().Counts); got != want {
			t.Errorf("countsLen(%v) = %d, want %d", sh, got, want)
		}
	}
	hostile := hostileHistogram(t)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := DecodeHistogram(hostile)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("DecodeHistogram(%d-byte hostile header) = %v, want a refusal", len(hostile), err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Errorf("refusing a %d-byte histogram allocated %d bytes, want under 1 MiB", len(hostile), grew)
	}
	small := hdrhistogram.New(1, 1000, 2)
	small.RecordValue(7)
	enc, _ := small.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if h, err := DecodeHistogram(string(enc)); err != nil || h.TotalCount() != 1 {
		t.Errorf("DecodeHistogram(a small shape) = %v, %v; want it decoded", h, err)
	}
}
