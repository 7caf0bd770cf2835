package gpu

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/perfgate/perfgate/result"
)

func TestThrottleNames(t *testing.T) {
	tests := []struct {
		name string
		mask uint64
		want []string
	}{
		{"none", 0, nil},
		{"power cap", 0x4, []string{"sw_power_cap"}},
		{"idle and thermal", 0x1 | 0x20 | 0x40, []string{"gpu_idle", "sw_thermal_slowdown", "hw_thermal_slowdown"}},
		// A bit newer drivers may define is kept, by value.
		{"unknown bit", 0x8 | 0x10000, []string{"hw_slowdown", "0x10000"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ThrottleNames(tt.mask)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("ThrottleNames(%#x) (-want +got):\n%s", tt.mask, d)
			}
		})
	}
}

func TestWindowNoZeros(t *testing.T) {
	var w Window
	w.Add([]Sample{Unknown(0), Unknown(0)})
	got := w.Stats([]Info{{Index: 0, Name: "g"}, {Index: 1, Name: "never sampled"}})
	want := []result.GPUStats{{
		Index: 0, Name: "g", Samples: 2,
		Unavailable: []string{"sm_util_pct", "mem_bw_util_pct", "mem_used_mib", "power_w"},
	}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Stats of unknown samples (-want +got):\n%s", d)
	}
	if n := w.Samples(); n != 2 {
		t.Errorf("Samples() = %d, want 2", n)
	}
	var empty Window
	if got := empty.Stats([]Info{{Index: 0}}); got != nil {
		t.Errorf("empty window Stats = %v, want nil", got)
	}
}

func TestWindowMajoritySource(t *testing.T) {
	var w Window
	s := Unknown(0)
	s.SMUtilPct, s.MemBWUtilPct = 10, 10
	s.Source = SourceGPM
	w.Add([]Sample{s})
	s.Source = SourceUtilization
	w.Add([]Sample{s})
	w.Add([]Sample{s})
	s.SMUtilPct = math.NaN() // an unknown reading's source does not count
	s.Source = SourceGPM
	w.Add([]Sample{s})
	if got := w.Stats([]Info{{}})[0].UtilSource; got != SourceUtilization {
		t.Errorf("UtilSource = %q, want %q", got, SourceUtilization)
	}
}
