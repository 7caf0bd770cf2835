// Package sizing turns a knee search into a capacity plan: how many
// instances a peak load needs, how uncertain that count is, how many
// requests are in flight at the peak, what an autoscaler should target and
// what it costs. It reads a perfgate.result/v1 file (package result) and
// produces a perfgate.sizing/v1 document (Sizing, and Diff between two
// plans). It computes and does no I/O: package report renders a plan as
// text, markdown or JSON (report.RenderSizing), and the HPA and KEDA
// manifests it generates are data, returned as YAML strings.
//
// # The model
//
// One instance sustains at most C requests per second under the P99 SLO (the
// knee: capacity.max_qps, the highest passing probe). For a peak of P
// requests per second and a safety margin H (headroom, default 1.3):
//
//	instances = ceil(P × H / C)
//
// The knee is only known to lie in the bracket [highest pass, lowest fail],
// so the instance count is only known to lie in
//
//	instances_range = [ceil(P × H / lowest fail), ceil(P × H / highest pass)]
//
// The high end is the plan (the conservative count); the low end is what
// the fleet would need if the true knee sat at the lowest failing rate.
//
// # Little's Law
//
// In a stable system the mean number of requests in flight L equals the
// arrival rate λ times the mean time W each spends inside: L = λW. At the
// peak the whole fleet holds
//
//	concurrency_at_peak = P × W
//
// requests, where W is the mean latency measured at the knee's load (the
// highest passing probe; its P50 when the probe has no mean). The same law
// gives the autoscaler's per-instance queue-depth target:
//
//	target_qps_per_instance  = C / H
//	queue_depth_per_instance = target_qps_per_instance × W
//
// LittlesLaw checks the law against a closed-loop run: the measured mean
// in-flight count against achieved rate × mean latency. A large gap means
// the client spent time outside the measured latency (queueing in the
// generator, connection set-up), so its latency figures understate.
//
// # Autoscaling
//
// The HPA snippet (autoscaling/v2) scales out fast (no stabilization window,
// doubling allowed every 15 s) and in slowly (a 300 s stabilization window,
// 10% a minute), so a burst is met at once and a lull does not shed capacity
// the next burst needs.
//
// Cost per month, when a price per instance-hour is given, is
// instances × price × 730 hours. Compare gives the change between a
// baseline's and a candidate's plans for the PR report.
//
// # The daily curve
//
// With a traffic curve (ReadTraffic: timestamp,qps CSV or a Prometheus
// range-query export), Plan also schedules the fleet: each point's
// interval runs the most instances any point needs from one lead time
// ahead (scale out before a predicted rise) to one stabilisation window
// back (scale in only after it), see schedule. The plan carries the
// schedule in the curve's time zone, the hour-by-hour plan, and the cost
// per day of the schedule against a flat fleet sized for the peak.
// KEDAObject and HPAObject turn a plan into typed manifests: a KEDA
// ScaledObject with one cron trigger per step and a Prometheus trigger for
// the reactive part, and an autoscaling/v2 HorizontalPodAutoscaler, both
// with Behavior (up at once, down after 300 s).
//
// # Caches and partitions
//
// A knee measured while a response cache answered a share h of the
// requests is sized on the misses (CachePlan); a knee measured on a device
// partition is compared with the whole device's (PartitionPlan). Both are
// documented on their types, with the arithmetic.
package sizing
