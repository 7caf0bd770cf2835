package sizing

import (
	"errors"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/result"
)

// The knee of 1000 rps was measured at a 30% hit rate: the model served
// 700 misses/s. At the measured rate the plan is ceil(P × H / K); at a 50%
// production hit rate each instance takes 700 / 0.5 = 1400 rps.
func TestCachePlan(t *testing.T) {
	res := knee(1000)
	res.Cache = &result.Cache{Source: "triton", Unit: "requests", Hits: 300, Misses: 700, HitRate: 0.3, Repeat: 0.3}
	half := 0.5
	tests := []struct {
		name      string
		in        Input
		instances int
		eff       float64
		formula   string
	}{
		{"measured hit rate", Input{PeakQPS: 5000, Headroom: 1}, 5, 1000, "instances = ceil(5000 × (1 − 0.3) × 1 / (1000 × (1 − 0.3))) = 5"},
		{"production hits more", Input{PeakQPS: 5000, Headroom: 1, HitRate: &half}, 4, 1400, "instances = ceil(5000 × (1 − 0.5) × 1 / (1000 × (1 − 0.3))) = 4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Plan(res, tt.in)
			if err != nil {
				t.Fatal(err)
			}
			cp := s.Cache
			if s.Instances != tt.instances || cp == nil || !cp.Applied || cp.EffectiveMaxQPS != tt.eff || cp.MissQPSPerInstance != 700 || s.Formula != tt.formula {
				t.Errorf("instances %d, cache %+v, formula %q; want %d, effective %v, 700 misses/s, %q", s.Instances, cp, s.Formula, tt.instances, tt.eff, tt.formula)
			}
			if s.Autoscaler.TargetQPSPerInstance != tt.eff {
				t.Errorf("autoscaler target %v, want the effective capacity %v", s.Autoscaler.TargetQPSPerInstance, tt.eff)
			}
		})
	}
	// A prefix cache counts tokens: reported, not planned on.
	res.Cache = &result.Cache{Source: "vllm", Unit: "tokens", Hits: 1, Misses: 1, HitRate: 0.5}
	s, err := Plan(res, Input{PeakQPS: 5000, Headroom: 1})
	if err != nil {
		t.Fatal(err)
	}
	if s.Instances != 5 || s.Cache.Applied || !strings.Contains(strings.Join(s.Warnings, "\n"), "hits save prefill") {
		t.Errorf("prefix cache: instances %d, %+v, warnings %q", s.Instances, s.Cache, s.Warnings)
	}
}

// A 1g slice sustains 300 rps and 7 fit on a device (2100 rps); the whole
// device sustains 1800 rps. For 10,000 rps × 1.3: ceil(13000 / 2100) = 7
// devices partitioned against ceil(13000 / 1800) = 8 whole: partitioned.
func TestPartitionPlan(t *testing.T) {
	slice := knee(300)
	slice.Scenario = "slice"
	slice.Partition = &result.Partition{Name: "1g.10gb", PerDevice: 7}
	whole := knee(1800)
	whole.Scenario = "whole"
	s, err := Plan(slice, Input{PeakQPS: 10000, CostPerInstanceHour: 4, Whole: whole})
	if err != nil {
		t.Fatal(err)
	}
	p := s.Partition
	if p.DevicesPartitioned != 7 || p.DevicesWhole != 8 || p.Recommend != "partitioned" || p.PerDeviceMaxQPS != 2100 ||
		*p.CostPerMonthPartitioned != 7*4*730 || *p.CostPerMonthWhole != 8*4*730 {
		t.Errorf("partition plan %+v", p)
	}
	// A slower slice loses: 200 × 7 = 1400 rps per device → 10 devices.
	slow := knee(200)
	slow.Partition = slice.Partition
	if s, err := Plan(slow, Input{PeakQPS: 10000, Whole: whole}); err != nil || s.Partition.Recommend != "whole" || s.Partition.DevicesPartitioned != 10 {
		t.Errorf("slow slice: %+v, %v", s.Partition, err)
	}
	if _, err := Plan(whole, Input{PeakQPS: 1, Whole: whole}); err == nil || !strings.Contains(err.Error(), "not measured on a partition") {
		t.Errorf("whole result as a partition: %v", err)
	}
	noKnee := &result.Result{Scenario: "w", Capacity: &result.Capacity{}}
	if _, err := Plan(slice, Input{PeakQPS: 1, Whole: noKnee}); !errors.Is(err, ErrNoCapacity) {
		t.Errorf("whole without a knee: %v", err)
	}
}
