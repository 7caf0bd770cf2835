package sizing

import (
	"fmt"
	"time"

	"github.com/perfgate/perfgate/result"
)

// CachePlan is the plan on the load that misses the server's cache. The
// knee K was measured with hit rate h (the scenario repeated some of its
// inputs); the model itself then served K × (1 − h) misses per second per
// instance. Production traffic with hit rate h' sends P × (1 − h') misses
// per second to the fleet, so
//
//	instances = ceil(P × (1 − h') × H / (K × (1 − h)))
//
// which is ceil(P × H / K) when h' = h. Only a cache that answers whole
// requests (Triton's response cache) is planned this way; a prefix cache's
// hits save prompt tokens, not requests, and leave the knee as measured.
type CachePlan struct {
	Source string `json:"source"`
	Unit   string `json:"unit"`
	// MeasuredHitRate is h, seen during the knee search; HitRate is h',
	// the rate the plan assumes (h unless one was given).
	MeasuredHitRate float64 `json:"measured_hit_rate"`
	HitRate         float64 `json:"hit_rate"`
	// MissQPSPerInstance is K × (1 − h): the misses one instance served at
	// its knee. MissQPSAtPeak is P × (1 − h').
	MissQPSPerInstance float64 `json:"miss_qps_per_instance"`
	MissQPSAtPeak      float64 `json:"miss_qps_at_peak"`
	// EffectiveMaxQPS is the per-instance request rate at hit rate h':
	// MissQPSPerInstance / (1 − h').
	EffectiveMaxQPS float64 `json:"effective_max_qps_per_instance"`
	// Applied is false for a prefix cache (token hits), whose hit rate is
	// reported and not planned on.
	Applied bool `json:"applied"`
}

// cachePlan returns the cache plan of res for in and the per-instance
// capacity to size with, or nil and knee when res measured no cache.
func cachePlan(res *result.Result, in Input, peak, knee float64) (*CachePlan, float64) {
	c := res.Cache
	if c == nil || c.Hits+c.Misses <= 0 {
		return nil, knee
	}
	cp := &CachePlan{Source: c.Source, Unit: c.Unit, MeasuredHitRate: round(c.HitRate, 4), HitRate: round(c.HitRate, 4)}
	if c.Unit != "requests" {
		cp.EffectiveMaxQPS = knee
		return cp, knee
	}
	if in.HitRate != nil {
		cp.HitRate = *in.HitRate
	}
	cp.Applied = true
	miss := knee * (1 - c.HitRate)
	cp.MissQPSPerInstance = round(miss, 2)
	cp.MissQPSAtPeak = round(peak*(1-cp.HitRate), 2)
	eff := miss / (1 - cp.HitRate)
	cp.EffectiveMaxQPS = round(eff, 2)
	return cp, eff
}

// PartitionPlan compares serving on device partitions (MIG slices) with
// serving on whole devices of the same model. One partition's knee K_p
// times the partitions per device n is the device's capacity partitioned;
// the whole-device knee K_w is its capacity whole:
//
//	devices partitioned = ceil(P × H / (K_p × n))
//	devices whole       = ceil(P × H / K_w)
//
// The cheaper wins (fewer devices; a tie goes to whole devices, which are
// simpler to run).
type PartitionPlan struct {
	Name      string `json:"name"`
	PerDevice int    `json:"per_device"`
	// PartitionMaxQPS is K_p; PerDeviceMaxQPS is K_p × n.
	PartitionMaxQPS float64 `json:"partition_max_qps"`
	PerDeviceMaxQPS float64 `json:"per_device_max_qps"`
	// WholeScenario and WholeDeviceMaxQPS are the whole-device knee K_w.
	WholeScenario     string  `json:"whole_scenario"`
	WholeDeviceMaxQPS float64 `json:"whole_device_max_qps"`
	// Devices each way, and their cost per month when priced (price per
	// device-hour: a partition is priced as 1/n of a device).
	DevicesPartitioned      int      `json:"devices_partitioned"`
	DevicesWhole            int      `json:"devices_whole"`
	CostPerMonthPartitioned *float64 `json:"cost_per_month_partitioned,omitempty"`
	CostPerMonthWhole       *float64 `json:"cost_per_month_whole,omitempty"`
	// Recommend is "partitioned" or "whole".
	Recommend string `json:"recommend"`
	Formula   string `json:"formula"`
}

// partitionPlan compares res (measured on a partition) with whole.
func partitionPlan(res, whole *result.Result, peak, h, price float64) (*PartitionPlan, error) {
	p := res.Partition
	if p == nil || p.PerDevice < 1 {
		return nil, fmt.Errorf("result of scenario %q was not measured on a partition (no partition: in its scenario)", res.Scenario)
	}
	wc := whole.Capacity
	if wc == nil || !wc.Found || !(wc.MaxQPS > 0) {
		return nil, fmt.Errorf("%w: whole-device result of scenario %q has no knee", ErrNoCapacity, whole.Scenario)
	}
	kp := res.Capacity.MaxQPS
	pp := &PartitionPlan{
		Name: p.Name, PerDevice: p.PerDevice,
		PartitionMaxQPS: kp, PerDeviceMaxQPS: round(kp*float64(p.PerDevice), 2),
		WholeScenario: whole.Scenario, WholeDeviceMaxQPS: wc.MaxQPS,
	}
	pp.DevicesPartitioned = instancesFor(peak, h, kp*float64(p.PerDevice))
	pp.DevicesWhole = instancesFor(peak, h, wc.MaxQPS)
	pp.Recommend = "whole"
	if pp.DevicesPartitioned < pp.DevicesWhole {
		pp.Recommend = "partitioned"
	}
	pp.Formula = fmt.Sprintf("partitioned: ceil(%s × %s / (%s × %d)) = %d devices; whole: ceil(%s × %s / %s) = %d devices",
		num(peak), num(h), num(kp), p.PerDevice, pp.DevicesPartitioned, num(peak), num(h), num(wc.MaxQPS), pp.DevicesWhole)
	if price > 0 {
		a := round(float64(pp.DevicesPartitioned)*price*HoursPerMonth, 2)
		b := round(float64(pp.DevicesWhole)*price*HoursPerMonth, 2)
		pp.CostPerMonthPartitioned, pp.CostPerMonthWhole = &a, &b
	}
	return pp, nil
}

// planTraffic schedules s over in's curve with per-instance capacity c.
func planTraffic(s *Sizing, in Input, c float64) {
	lead, window := in.LeadTime, in.ScaleInAfter
	switch lead {
	case 0:
		lead = DefaultLeadTime
	case NoWindow:
		lead = 0
	}
	switch window {
	case 0:
		window = DefaultScaleInAfter
	case NoWindow:
		window = 0
	}
	steps, tp := schedule(in.Traffic, c, s.Headroom, lead, window)
	s.Schedule, s.Traffic = steps, tp
	// The flat fleet is the plan's own peak count, all day.
	tp.FlatInstanceHoursPerDay = float64(s.Instances * 24)
	if peak := in.Traffic.Peak(); peak > s.PeakQPS*(1+1e-9) {
		s.Warnings = append(s.Warnings, fmt.Sprintf(
			"the traffic curve peaks at %s rps, above the peak of %s rps the flat fleet is sized for", num(peak), num(s.PeakQPS)))
	}
	if in.CostPerInstanceHour > 0 {
		d := round(tp.InstanceHoursPerDay*in.CostPerInstanceHour, 2)
		f := round(tp.FlatInstanceHoursPerDay*in.CostPerInstanceHour, 2)
		s.CostPerDay, s.FlatCostPerDay = &d, &f
	}
	if in.Traffic.Span() < 24*time.Hour {
		s.Warnings = append(s.Warnings, fmt.Sprintf(
			"the traffic curve covers %v, less than a day: the cost per day scales it to 24 h", in.Traffic.Span()))
	}
}
