package sizing

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"unicode"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// HPA scaling behaviour: out fast, in slowly, as the method recommends.
const (
	// ScaleUpWindowS is the scale-up stabilization window: none, so a burst
	// is met at once.
	ScaleUpWindowS = 0
	// ScaleDownWindowS is the scale-down stabilization window: five
	// minutes, so a lull does not shed capacity the next burst needs.
	ScaleDownWindowS = 300
)

// RateMetric is the per-pod request-rate metric the HPA scales on, served
// by a metrics adapter (e.g. prometheus-adapter).
const RateMetric = "http_requests_per_second"

// Behavior is the autoscaling/v2 scaling behaviour perfgate recommends:
// scale up at once (no stabilization window, doubling allowed every 15 s)
// and down slowly (a ScaleDownWindowS stabilization window, then 10% a
// minute). The HPA and KEDA's ScaledObject both carry it.
func Behavior() *autoscalingv2.HorizontalPodAutoscalerBehavior {
	i32 := func(v int32) *int32 { return &v }
	maxPolicy := autoscalingv2.MaxChangePolicySelect
	return &autoscalingv2.HorizontalPodAutoscalerBehavior{
		ScaleUp: &autoscalingv2.HPAScalingRules{
			StabilizationWindowSeconds: i32(ScaleUpWindowS),
			SelectPolicy:               &maxPolicy,
			Policies: []autoscalingv2.HPAScalingPolicy{
				{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15},
			},
		},
		ScaleDown: &autoscalingv2.HPAScalingRules{
			StabilizationWindowSeconds: i32(ScaleDownWindowS),
			SelectPolicy:               &maxPolicy,
			Policies: []autoscalingv2.HPAScalingPolicy{
				{Type: autoscalingv2.PercentScalingPolicy, Value: 10, PeriodSeconds: 60},
			},
		},
	}
}

// replicaBounds are the autoscaler's minimum and maximum replicas: the
// schedule's floor (else min(2, instances)) and room for twice the
// planned peak.
func (s *Sizing) replicaBounds() (minR, maxR int32) {
	lo := min(2, s.Instances)
	if len(s.Schedule) > 0 {
		lo = s.Schedule[0].Instances
		for _, st := range s.Schedule {
			lo = min(lo, st.Instances)
		}
	}
	hi := max(2*s.Instances, lo+1)
	return int32(lo), int32(hi)
}

// rateQuantity is a per-pod rate target as a Kubernetes quantity: whole
// requests per second, rounded down, or milli-units below one.
func rateQuantity(qps float64) resource.Quantity {
	if qps >= 1 {
		return *resource.NewQuantity(int64(math.Floor(qps)), resource.DecimalSI)
	}
	return *resource.NewMilliQuantity(int64(math.Floor(qps*1000)), resource.DecimalSI)
}

// HPAObject is the plan's autoscaling/v2 HorizontalPodAutoscaler: it
// scales a Deployment named after the scenario on RateMetric per pod, with
// target averageValue = the autoscaler's target rate per instance, and
// Behavior.
func (s *Sizing) HPAObject() *autoscalingv2.HorizontalPodAutoscaler {
	name := dnsLabel(s.Scenario)
	minR, maxR := s.replicaBounds()
	target := rateQuantity(s.Autoscaler.TargetQPSPerInstance)
	return &autoscalingv2.HorizontalPodAutoscaler{
		TypeMeta:   metav1.TypeMeta{APIVersion: "autoscaling/v2", Kind: "HorizontalPodAutoscaler"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: name},
			MinReplicas:    &minR,
			MaxReplicas:    maxR,
			Metrics: []autoscalingv2.MetricSpec{{
				Type: autoscalingv2.PodsMetricSourceType,
				Pods: &autoscalingv2.PodsMetricSource{
					Metric: autoscalingv2.MetricIdentifier{Name: RateMetric},
					Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: &target},
				},
			}},
			Behavior: Behavior(),
		},
	}
}

// HPAYAML renders HPAObject as YAML, with a comment line saying where its
// numbers come from.
func (s *Sizing) HPAYAML() (string, error) {
	b, err := manifestYAML(s.HPAObject(), "status")
	if err != nil {
		return "", fmt.Errorf("hpa: %w", err)
	}
	head := fmt.Sprintf("# perfgate: %s, %d instances at %s rps peak; target %s rps per pod = max QPS %s / headroom %s\n",
		oneLine(s.Scenario), s.Instances, num(s.PeakQPS), num(s.Autoscaler.TargetQPSPerInstance), num(s.PerInstanceMaxQPS), num(s.Headroom))
	return head + string(b), nil
}

// oneLine keeps a name from perfgate.yaml inside a manifest's comment line:
// line breaks and other control characters become spaces, so that a name
// cannot add YAML of its own.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s)
}

// manifestYAML marshals a Kubernetes object as YAML without the fields a
// manifest does not set: the given top-level keys (status) and
// metadata.creationTimestamp, which the typed objects always carry.
func manifestYAML(obj any, drop ...string) ([]byte, error) {
	j, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(j, &m); err != nil {
		return nil, err
	}
	for _, k := range drop {
		delete(m, k)
	}
	if md, ok := m["metadata"].(map[string]any); ok {
		delete(md, "creationTimestamp")
	}
	return yaml.Marshal(m)
}

// dnsLabel turns s into a Kubernetes object name (RFC 1123 label):
// lowercase letters, digits and '-', at most 63 characters.
func dnsLabel(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		ok := (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9')
		switch {
		case ok:
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
	}
	out := strings.TrimRight(b.String(), "-")
	if len(out) > 63 {
		out = strings.TrimRight(out[:63], "-")
	}
	if out == "" {
		return "inference"
	}
	return out
}
