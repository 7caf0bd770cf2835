package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/result"
)

func TestSparkline(t *testing.T) {
	flat := result.NewHistogram()
	tail := result.NewHistogram()
	for i := range 10000 {
		result.RecordDuration(flat, 5*time.Millisecond)
		d := 2 * time.Millisecond
		if i%100 == 0 { // the slowest 1%: 50 ms
			d = 50 * time.Millisecond
		}
		result.RecordDuration(tail, d)
	}
	tests := []struct {
		name     string
		cells    int
		want     string
		wantLast float64
	}{
		// One value: no spread, the lowest block throughout.
		{name: "flat", cells: 9, want: "▁▁▁▁▁▁▁▁▁", wantLast: 99.99},
		// 10,000 values resolve to 99.99%; the 1% tail begins at 99%, half
		// way along the axis.
		{name: "a 1% tail", cells: 9, want: "▁▁▁▁▁████", wantLast: 99.99},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := flat
			if i == 1 {
				h = tail
			}
			got, last := Sparkline(h, tt.cells)
			if got != tt.want || last < tt.wantLast-1e-9 || last > tt.wantLast+1e-9 {
				t.Errorf("Sparkline = %q, %v; want %q, %v", got, last, tt.want, tt.wantLast)
			}
		})
	}
	if got, _ := Sparkline(result.NewHistogram(), 9); got != "" {
		t.Errorf("Sparkline(empty) = %q, want \"\"", got)
	}
}

func TestSpectrum(t *testing.T) {
	r := htmlReport(t)
	var b bytes.Buffer
	if err := Spectrum(&b, r.Candidate); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 1+len(r.Candidate) || !strings.HasPrefix(lines[0], "latency spectrum (0% → ") {
		t.Fatalf("Spectrum wrote:\n%s\nwant a header and one line per result", b.String())
	}
	for _, l := range lines[1:] {
		if !strings.Contains(l, "p99 ") || !strings.ContainsAny(l, "▁█") {
			t.Errorf("line %q lacks a sparkline or its percentiles", l)
		}
	}
}
