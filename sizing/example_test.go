package sizing_test

import (
	"fmt"

	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/sizing"
)

func ExamplePlan() {
	res := &result.Result{
		Schema: result.Schema, Scenario: "kserve-int8-batched", Valid: true,
		Capacity: &result.Capacity{
			SLOP99Ms: 50, MaxQPS: 1234.5, Bracket: [2]float64{1234.5, 1260}, Found: true, Windows: 6,
			Points: []result.Point{{OfferedRPS: 1234.5, AchievedRPS: 1234.1, Pass: true,
				Latency: result.Latency{P50: 7.9, P99: 41.2, Mean: 8.42}}},
		},
	}
	s, err := sizing.Plan(res, sizing.Input{PeakQPS: 5000, Headroom: 1.3, CostPerInstanceHour: 2.5})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Formula)
	fmt.Println("range:", s.InstancesRange, "in flight at peak:", s.ConcurrencyAtPeak)
	fmt.Println("target per instance:", s.Autoscaler.TargetQPSPerInstance, "rps, cost per month:", *s.CostPerMonth)
	// Output:
	// instances = ceil(5000 × 1.3 / 1234.5) = 6
	// range: [6 6] in flight at peak: 42.1
	// target per instance: 949.6 rps, cost per month: 10950
}

func ExampleCompare() {
	plan := func(maxQPS, lowestFail float64) *sizing.Sizing {
		s, _ := sizing.Plan(&result.Result{Scenario: "svc", Valid: true, Capacity: &result.Capacity{
			SLOP99Ms: 50, MaxQPS: maxQPS, Bracket: [2]float64{maxQPS, lowestFail}, Found: true,
			Points: []result.Point{{OfferedRPS: maxQPS, Pass: true, Latency: result.Latency{Mean: 8}}},
		}}, sizing.Input{PeakQPS: 5000, CostPerInstanceHour: 2.5})
		return s
	}
	d := sizing.Compare(plan(600, 620), plan(470, 485))
	fmt.Printf("instances %d → %d (%+d), max QPS per instance %.1f%%, cost per month %+.2f\n",
		d.BaselineInstances, d.CandidateInstances, d.InstancesDelta, d.MaxQPSDeltaPct, *d.CostPerMonthDelta)
	// Output:
	// instances 11 → 14 (+3), max QPS per instance -21.7%, cost per month +5475.00
}
