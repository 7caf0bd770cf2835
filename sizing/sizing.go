package sizing

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/perfgate/perfgate/internal/defaults"
	"github.com/perfgate/perfgate/result"
)

// Schema is the schema tag of a sizing document.
const Schema = "perfgate.sizing/v1"

// DefaultHeadroom is the safety margin used when Input.Headroom is zero.
const DefaultHeadroom = defaults.Headroom

// HoursPerMonth is the number of hours a month is billed for (365 × 24 / 12).
const HoursPerMonth = 730

// ErrNoCapacity is returned (wrapped) when a result cannot be sized: it has
// no knee search, or no probe of it met the SLO.
var ErrNoCapacity = errors.New("no capacity to size from")

// Sizing is a capacity plan, the perfgate.sizing/v1 document.
type Sizing struct {
	Schema   string `json:"schema"`
	Scenario string `json:"scenario"`
	// SLOP99Ms is the P99 objective the knee was searched under.
	SLOP99Ms float64 `json:"slo_p99_ms"`
	// PerInstanceMaxQPS is the capacity sized from: the geometric mean of
	// the knee's confirmation estimates when the search confirmed it (the
	// same figure the gate tests as max QPS), else the knee (the highest
	// offered rate that passed). PerInstanceMaxQPSBasis says which.
	PerInstanceMaxQPS float64 `json:"per_instance_max_qps"`
	// PerInstanceMaxQPSInterval is the confidence interval (95%) of that
	// mean from the estimates' spread (Student's t on their logarithms);
	// nil with fewer than two estimates.
	PerInstanceMaxQPSInterval *[2]float64 `json:"per_instance_max_qps_interval,omitempty"`
	PerInstanceMaxQPSBasis    string      `json:"per_instance_max_qps_basis,omitempty"`
	// PerInstanceMaxQPSBracket is [highest pass, lowest fail]; the second
	// element is 0 when no probe failed.
	PerInstanceMaxQPSBracket [2]float64 `json:"per_instance_max_qps_bracket"`
	PeakQPS                  float64    `json:"peak_qps"`
	Headroom                 float64    `json:"headroom"`
	// CapacityAtLeast is true when the knee search passed at its maximum
	// rate: PerInstanceMaxQPS is a lower bound on the capacity, so
	// Instances is an upper bound (fewer may do).
	CapacityAtLeast bool `json:"per_instance_max_qps_at_least,omitempty"`
	// Instances is ceil(peak_qps × headroom / per_instance_max_qps).
	Instances int `json:"instances"`
	// InstancesRange is what the capacity's uncertainty allows: from the
	// estimates' interval [from its top, from its bottom] when there is
	// one, else from the bracket [from lowest fail, from highest pass].
	InstancesRange [2]int `json:"instances_range"`
	// ConcurrencyAtPeak is peak_qps × LatencyAtOperatingMs (Little's Law), the
	// fleet's mean number of requests in flight at the peak.
	ConcurrencyAtPeak float64 `json:"concurrency_at_peak"`
	// LatencyAtKneeMs is W: the mean latency of the highest passing probe
	// (its P50 when the probe recorded no mean); LatencyBasis says which.
	LatencyAtKneeMs float64 `json:"latency_at_knee_ms"`
	LatencyBasis    string  `json:"latency_basis"`
	// OperatingQPS is the rate each instance is planned to run at, max QPS
	// / headroom; LatencyAtOperatingMs the mean latency there, measured or
	// interpolated between the sweep's passing probes (OperatingBasis says
	// how). ConcurrencyAtPeak and the queue-depth target use it: a fleet
	// sized with headroom does not run at its knee.
	OperatingQPS         float64 `json:"operating_qps,omitempty"`
	LatencyAtOperatingMs float64 `json:"latency_at_operating_ms,omitempty"`
	OperatingBasis       string  `json:"operating_basis,omitempty"`
	// Autoscaler is the advice for a horizontal autoscaler.
	Autoscaler Autoscaler `json:"autoscaler"`
	// CostPerInstanceHour is the price given; CostPerMonth is
	// instances × price × 730 h. Both are omitted when no price was given.
	CostPerInstanceHour float64  `json:"cost_per_instance_hour,omitempty"`
	CostPerMonth        *float64 `json:"cost_per_month,omitempty"`
	// Formula is the instance formula with the numbers filled in.
	Formula string `json:"formula"`
	// Windows is how many measurement windows the knee search used.
	Windows int `json:"windows,omitempty"`
	// Little is the Little's Law check of the run, when it measured the
	// in-flight count.
	Little *LittleCheck `json:"littles_law,omitempty"`
	// Simulated is copied from the result: the target computed nothing real.
	Simulated bool `json:"simulated,omitempty"`
	// Traffic says how a traffic curve was planned, when one was given;
	// Schedule is the fleet over the curve, in the curve's time zone, each
	// step's instances already including the lead time and the scale-in
	// window.
	Traffic  *TrafficPlan `json:"traffic,omitempty"`
	Schedule []Step       `json:"schedule,omitempty"`
	// CostPerDay is what the schedule costs a day (its instance-hours ×
	// price, scaled to 24 h); FlatCostPerDay a fleet sized for the peak
	// all day (instances × price × 24). Both need a curve and a price.
	CostPerDay     *float64 `json:"cost_per_day,omitempty"`
	FlatCostPerDay *float64 `json:"flat_cost_per_day,omitempty"`
	// Cache is the plan on the load that misses the server's cache, when
	// the knee search measured a hit rate.
	Cache *CachePlan `json:"cache,omitempty"`
	// Partition compares a partitioned device with a whole one, when the
	// result was measured on a partition and a whole-device result is given.
	Partition *PartitionPlan `json:"partition,omitempty"`
	// Warnings are the plan's caveats, in words a reader can act on.
	Warnings []string `json:"warnings,omitempty"`
}

// Autoscaler is the advice for a horizontal autoscaler of one instance type.
type Autoscaler struct {
	// TargetQPSPerInstance is per_instance_max_qps / headroom: scale out
	// before any instance reaches its knee.
	TargetQPSPerInstance float64 `json:"target_qps_per_instance"`
	// QueueDepthPerInstance is the mean in-flight count per instance at the
	// target rate: target_qps_per_instance × W (Little's Law). Use it when
	// scaling on queue depth or concurrency instead of rate.
	QueueDepthPerInstance float64 `json:"queue_depth_per_instance"`
	// HPA is a Kubernetes autoscaling/v2 HorizontalPodAutoscaler (YAML)
	// scaling on requests per second per pod, out fast and in slowly.
	HPA string `json:"hpa,omitempty"`
}

// LittleCheck compares a run's measured mean in-flight count L with λ·W,
// its achieved rate times its mean latency.
type LittleCheck struct {
	MeasuredInFlight  float64 `json:"measured_in_flight"`
	PredictedInFlight float64 `json:"predicted_in_flight"`
	// RelGap is (measured − predicted) / predicted.
	RelGap float64 `json:"rel_gap"`
	// OK is true when |L − λW| <= LittleTolerance × λW + LittleSlack.
	OK bool `json:"ok"`
}

// LittleTolerance is the relative gap LittleCheck accepts as agreement.
const LittleTolerance = 0.10

// LittleSlack is the absolute gap, in requests, LittleCheck accepts on top
// of LittleTolerance. With under a few requests in flight a relative test
// is too strict: the time between a request's intended and actual send,
// the window's edges and the generator's own few microseconds per request
// are each a fixed share of a request, so 0.9 in flight against λ·W = 1.0
// is agreement, not a timing error; with 20 in flight the slack is under
// 1% and the relative test decides.
const LittleSlack = 0.15

// Diff is the change from a baseline's plan to a candidate's, for the PR
// report: "you now need 14 instances instead of 11".
type Diff struct {
	Scenario string  `json:"scenario"`
	PeakQPS  float64 `json:"peak_qps"`
	// BaselineInstances → CandidateInstances, and the change.
	BaselineInstances  int `json:"baseline_instances"`
	CandidateInstances int `json:"candidate_instances"`
	InstancesDelta     int `json:"instances_delta"`
	// BaselineMaxQPS → CandidateMaxQPS per instance, and the relative change
	// in percent.
	BaselineMaxQPS  float64 `json:"baseline_max_qps"`
	CandidateMaxQPS float64 `json:"candidate_max_qps"`
	MaxQPSDeltaPct  float64 `json:"max_qps_delta_pct"`
	// Cost per month before and after, and the change; nil when either plan
	// has no price.
	BaselineCostPerMonth  *float64 `json:"baseline_cost_per_month,omitempty"`
	CandidateCostPerMonth *float64 `json:"candidate_cost_per_month,omitempty"`
	CostPerMonthDelta     *float64 `json:"cost_per_month_delta,omitempty"`
	// Cost per day of the two schedules and the change, when both plans
	// were made on a traffic curve with a price.
	BaselineCostPerDay  *float64 `json:"baseline_cost_per_day,omitempty"`
	CandidateCostPerDay *float64 `json:"candidate_cost_per_day,omitempty"`
	CostPerDayDelta     *float64 `json:"cost_per_day_delta,omitempty"`
	// Overlap is true when the two plans' instance ranges overlap: the
	// change in instance count may be measurement uncertainty.
	Overlap bool `json:"overlap"`
	// MaxQPSCIPct and MaxQPSVerdict are the gate's test of the same max
	// QPS change (set by the gate, which compares the same estimates):
	// the capacity line shows them so it never reads as more certain
	// than the verdict.
	MaxQPSCIPct   *[2]float64 `json:"max_qps_ci_pct,omitempty"`
	MaxQPSVerdict string      `json:"max_qps_verdict,omitempty"`
	Warnings      []string    `json:"warnings,omitempty"`
}

// Input is what a plan is sized for.
type Input struct {
	// PeakQPS is the traffic to size for (the peak, not the average); > 0.
	PeakQPS float64
	// Headroom is the safety margin, >= 1; 0 means DefaultHeadroom.
	Headroom float64
	// CostPerInstanceHour is the price of one instance; 0 means no cost.
	CostPerInstanceHour float64
	// Traffic is the traffic curve to schedule for; nil plans for PeakQPS
	// alone. With a curve, PeakQPS may be 0: the curve's peak is used.
	Traffic *Curve
	// LeadTime is how long before a predicted rise the schedule scales out
	// (0 means DefaultLeadTime); ScaleInAfter how long after a fall it
	// scales in (0 means DefaultScaleInAfter). Use NoWindow for none.
	LeadTime, ScaleInAfter time.Duration
	// HitRate is the cache hit rate production will see, 0 to 1; nil means
	// the hit rate measured during the knee search.
	HitRate *float64
	// Whole is the whole-device knee search of the same model, compared
	// with a result measured on a partition of the device.
	Whole *result.Result
}

// NoWindow asks for a zero lead time or scale-in window (the zero value
// means the default).
const NoWindow time.Duration = -1

// InputError is an Input field out of its range. Field is the field's
// key under perfgate.yaml's capacity (peak_qps, headroom,
// cost_per_instance_hour, lead_time, scale_in_after, hit_rate), so that a
// front end can name its own spelling of it (a flag: the key with '-' for
// '_').
type InputError struct {
	Field string
	Value any
	// Want is the range, as the message ends: "a finite number > 0".
	Want string
}

func (e *InputError) Error() string {
	return fmt.Sprintf("%s is %v, want %s", e.Field, e.Value, e.Want)
}

// Validate reports the first invalid field of in as an *InputError.
func (in Input) Validate() error {
	window := "0 to " + MaxScheduleWindow.String()
	switch {
	case in.LeadTime < NoWindow || in.LeadTime > MaxScheduleWindow:
		return &InputError{"lead_time", in.LeadTime, window}
	case in.ScaleInAfter < NoWindow || in.ScaleInAfter > MaxScheduleWindow:
		return &InputError{"scale_in_after", in.ScaleInAfter, window}
	case in.HitRate != nil && !(*in.HitRate >= 0 && *in.HitRate < 1):
		return &InputError{"hit_rate", *in.HitRate, "0 to 1 (exclusive)"}
	case in.Traffic != nil && in.PeakQPS == 0:
	case !(in.PeakQPS > 0) || math.IsInf(in.PeakQPS, 0):
		return &InputError{"peak_qps", in.PeakQPS, "a finite number > 0"}
	}
	switch {
	case in.Headroom != 0 && (!(in.Headroom >= 1) || math.IsInf(in.Headroom, 0)):
		return &InputError{"headroom", in.Headroom, "a finite number >= 1 (1.3 plans 30% spare)"}
	case !(in.CostPerInstanceHour >= 0) || math.IsInf(in.CostPerInstanceHour, 0):
		return &InputError{"cost_per_instance_hour", in.CostPerInstanceHour, "a finite number >= 0"}
	}
	return nil
}

// instancesFor is ceil(peak × headroom / perInstance), at least 1. A tiny
// epsilon keeps floating-point noise (5000×1.3/1300 = 5.000000001) from
// adding an instance.
func instancesFor(peak, headroom, perInstance float64) int {
	x := peak * headroom / perInstance
	n := int(math.Ceil(x - 1e-9*x))
	return max(n, 1)
}
