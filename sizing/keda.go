package sizing

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// KEDA's ScaledObject (keda.sh/v1alpha1) has no type in k8s.io/api; these
// mirror the part of its schema perfgate writes, with KEDA's JSON names,
// so the manifest is generated from types and decoded strictly in tests.

// ScaledObject is a KEDA keda.sh/v1alpha1 ScaledObject.
type ScaledObject struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              ScaledObjectSpec `json:"spec"`
}

// ScaledObjectSpec is the spec of a ScaledObject.
type ScaledObjectSpec struct {
	ScaleTargetRef  *ScaleTarget    `json:"scaleTargetRef"`
	PollingInterval *int32          `json:"pollingInterval,omitempty"`
	CooldownPeriod  *int32          `json:"cooldownPeriod,omitempty"`
	MinReplicaCount *int32          `json:"minReplicaCount,omitempty"`
	MaxReplicaCount *int32          `json:"maxReplicaCount,omitempty"`
	Advanced        *AdvancedConfig `json:"advanced,omitempty"`
	Triggers        []ScaleTriggers `json:"triggers"`
}

// ScaleTarget names the workload a ScaledObject scales.
type ScaleTarget struct {
	Name       string `json:"name"`
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind,omitempty"`
}

// AdvancedConfig holds the HPA KEDA creates.
type AdvancedConfig struct {
	HorizontalPodAutoscalerConfig *HorizontalPodAutoscalerConfig `json:"horizontalPodAutoscalerConfig,omitempty"`
	RestoreToOriginalReplicaCount bool                           `json:"restoreToOriginalReplicaCount,omitempty"`
}

// HorizontalPodAutoscalerConfig is the behaviour of the HPA KEDA creates:
// the autoscaling/v2 type itself.
type HorizontalPodAutoscalerConfig struct {
	Behavior *autoscalingv2.HorizontalPodAutoscalerBehavior `json:"behavior,omitempty"`
	Name     string                                         `json:"name,omitempty"`
}

// ScaleTriggers is one trigger of a ScaledObject.
type ScaleTriggers struct {
	Type       string            `json:"type"`
	Name       string            `json:"name,omitempty"`
	MetricType string            `json:"metricType,omitempty"`
	Metadata   map[string]string `json:"metadata"`
}

// KEDAOptions are the parts of the KEDA manifest the plan cannot know.
type KEDAOptions struct {
	// PrometheusURL is the Prometheus server the reactive trigger queries;
	// "" means DefaultPrometheusURL.
	PrometheusURL string
	// Query is the PromQL giving the service's total request rate; ""
	// means sum(rate(http_requests_total{service="NAME"}[2m])).
	Query string
}

// DefaultPrometheusURL is the in-cluster Prometheus the KEDA trigger
// queries unless told otherwise.
const DefaultPrometheusURL = "http://prometheus.monitoring.svc:9090"

// ErrNoSchedule is returned when a KEDA manifest is asked of a plan made
// without a traffic curve.
var ErrNoSchedule = errors.New("no schedule: size with a traffic curve (--traffic) for KEDA's cron triggers")

// KEDAObject is the plan's KEDA ScaledObject: one cron trigger per step of
// the schedule above its floor (desiredReplicas = the step's instances,
// from the step's start to its end, in the curve's time zone), and a
// Prometheus trigger for the reactive part (threshold = the target rate
// per instance, so unforecast traffic still scales the fleet). KEDA runs
// the highest replica count any trigger asks for. The HPA it creates gets
// Behavior: up at once, down after ScaleDownWindowS.
func (s *Sizing) KEDAObject(o KEDAOptions) (*ScaledObject, error) {
	if len(s.Schedule) == 0 || s.Traffic == nil {
		return nil, ErrNoSchedule
	}
	tz, err := s.Traffic.ianaZone()
	if err != nil {
		return nil, err
	}
	name := dnsLabel(s.Scenario)
	minR, maxR := s.replicaBounds()
	url := o.PrometheusURL
	if url == "" {
		url = DefaultPrometheusURL
	}
	query := o.Query
	if query == "" {
		query = fmt.Sprintf(`sum(rate(http_requests_total{service="%s"}[2m]))`, name)
	}
	cooldown := int32(ScaleDownWindowS)
	so := &ScaledObject{
		TypeMeta:   metav1.TypeMeta{APIVersion: "keda.sh/v1alpha1", Kind: "ScaledObject"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: ScaledObjectSpec{
			ScaleTargetRef:  &ScaleTarget{APIVersion: "apps/v1", Kind: "Deployment", Name: name},
			CooldownPeriod:  &cooldown,
			MinReplicaCount: &minR,
			MaxReplicaCount: &maxR,
			Advanced: &AdvancedConfig{HorizontalPodAutoscalerConfig: &HorizontalPodAutoscalerConfig{
				Behavior: Behavior(),
			}},
		},
	}
	for i, st := range s.Schedule {
		if int32(st.Instances) <= minR {
			continue
		}
		so.Spec.Triggers = append(so.Spec.Triggers, ScaleTriggers{
			Type: "cron",
			Name: fmt.Sprintf("schedule-%d", i),
			Metadata: map[string]string{
				"timezone":        tz,
				"start":           cronAt(st.From, s.Traffic.Daily),
				"end":             cronAt(st.To, s.Traffic.Daily),
				"desiredReplicas": strconv.Itoa(st.Instances),
			},
		})
	}
	so.Spec.Triggers = append(so.Spec.Triggers, ScaleTriggers{
		Type:       "prometheus",
		Name:       "request-rate",
		MetricType: string(autoscalingv2.AverageValueMetricType),
		Metadata: map[string]string{
			"serverAddress": url,
			"query":         query,
			"threshold":     strconv.FormatFloat(s.Autoscaler.TargetQPSPerInstance, 'f', -1, 64),
		},
	})
	return so, nil
}

// KEDAYAML renders KEDAObject as YAML, with a comment line saying where
// its numbers come from.
func (s *Sizing) KEDAYAML(o KEDAOptions) (string, error) {
	so, err := s.KEDAObject(o)
	if err != nil {
		return "", err
	}
	b, err := manifestYAML(so)
	if err != nil {
		return "", fmt.Errorf("keda: %w", err)
	}
	head := fmt.Sprintf("# perfgate: %s, schedule from %s (%s), lead time %v, scale in after %v; reactive target %s rps per pod\n",
		oneLine(s.Scenario), oneLine(s.Traffic.Source), oneLine(s.Traffic.TimeZone), time.Duration(s.Traffic.LeadTimeS*float64(time.Second)),
		time.Duration(s.Traffic.ScaleInAfterS*float64(time.Second)), num(s.Autoscaler.TargetQPSPerInstance))
	return head + string(b), nil
}

// cronAt is a cron expression firing at t's minute: daily ("M H * * *")
// for a daily curve, else on t's date ("M H D Mon *").
func cronAt(t time.Time, daily bool) string {
	if daily {
		return fmt.Sprintf("%d %d * * *", t.Minute(), t.Hour())
	}
	return fmt.Sprintf("%d %d %d %d *", t.Minute(), t.Hour(), t.Day(), int(t.Month()))
}

// ianaZone is the plan's time zone as KEDA wants it: an IANA name
// (Etc/UTC, Etc/GMT-1 for +01:00: POSIX signs are inverted).
func (tp *TrafficPlan) ianaZone() (string, error) {
	z := tp.TimeZone
	switch {
	case z == "UTC":
		return "Etc/UTC", nil
	case len(z) == 0 || (z[0] != '+' && z[0] != '-'):
		return z, nil
	}
	t, err := time.Parse("-07:00", z)
	if err != nil {
		return "", fmt.Errorf("time zone %q: %w", z, err)
	}
	_, off := t.Zone()
	if off%3600 != 0 {
		return "", fmt.Errorf("time zone %s is not a whole-hour offset: give --timezone with an IANA zone name for KEDA's cron triggers", z)
	}
	if h := off / 3600; h > 0 {
		return fmt.Sprintf("Etc/GMT-%d", h), nil
	}
	return fmt.Sprintf("Etc/GMT+%d", -off/3600), nil
}
