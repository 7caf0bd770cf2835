package sizing

import (
	"fmt"
	"math"
	"strings"
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

// hpaYAML renders a Kubernetes autoscaling/v2 HorizontalPodAutoscaler that
// scales a Deployment named after the scenario on a per-pod requests-per-
// second metric (served by a metrics adapter, e.g. prometheus-adapter) with
// target averageValue = target rate per instance, rounded down. maxReplicas
// leaves room for twice the planned peak.
func hpaYAML(scenario string, instances int, targetQPS float64) string {
	name := dnsLabel(scenario)
	minR := min(2, instances)
	maxR := max(2*instances, minR+1)
	target := int64(math.Floor(targetQPS))
	if target < 1 {
		// Below one request per second per pod: use milli-units.
		target = 0
	}
	val := fmt.Sprintf("%d", target)
	if target == 0 {
		val = fmt.Sprintf("%dm", int64(math.Floor(targetQPS*1000)))
	}
	var b strings.Builder
	fmt.Fprintf(&b, `apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: %[1]s
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: %[1]s
  minReplicas: %[2]d
  maxReplicas: %[3]d  # the plan needs %[4]d at peak
  metrics:
    - type: Pods
      pods:
        metric:
          name: http_requests_per_second  # per-pod request rate, from your metrics adapter
        target:
          type: AverageValue
          averageValue: "%[5]s"  # max QPS under the SLO / headroom
  behavior:
    scaleUp:
      stabilizationWindowSeconds: %[6]d
      policies:
        - type: Percent
          value: 100
          periodSeconds: 15
    scaleDown:
      stabilizationWindowSeconds: %[7]d
      policies:
        - type: Percent
          value: 10
          periodSeconds: 60
`, name, minR, maxR, instances, val, ScaleUpWindowS, ScaleDownWindowS)
	return b.String()
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
