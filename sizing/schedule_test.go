package sizing

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"sigs.k8s.io/yaml"

	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/sizing/sizingtest"
)

// readCurve reads testdata/name.
func readCurve(t *testing.T, name string) *Curve {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := ReadTraffic(name, f, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// knee is sizingtest.Knee: a result whose knee is exactly maxQPS.
func knee(maxQPS float64) *result.Result { return sizingtest.Knee(maxQPS) }

type stepWant struct {
	from, to  string // HH:MM
	qps       float64
	instances int
}

func steps(t *testing.T, s *Sizing) []stepWant {
	t.Helper()
	var got []stepWant
	for _, st := range s.Schedule {
		got = append(got, stepWant{st.From.Format("15:04"), st.To.Format("15:04"), st.QPS, st.Instances})
	}
	return got
}

// The working day in testdata/day.csv needs 1, 2, 4, 3 and 4 instances of
// 1000 rps through the day (headroom 1); the schedule scales out an hour
// before each rise and in an hour after each fall, so the noon dip (3) is
// bridged and the evening fall waits an hour. Worked by hand:
//
//	00–06 1, 06–08 2, 08–19 4, 19–22 2, 22–24 1 = 62 instance-hours
//	flat: 4 × 24 = 96 instance-hours; at $2.50/h $155.00 vs $240.00 a day.
func TestScheduleDay(t *testing.T) {
	c := readCurve(t, "day.csv")
	s, err := Plan(knee(1000), Input{Headroom: 1, CostPerInstanceHour: 2.5, Traffic: c})
	if err != nil {
		t.Fatal(err)
	}
	want := []stepWant{
		{"00:00", "06:00", 500, 1},
		{"06:00", "08:00", 1500, 2},
		{"08:00", "19:00", 3500, 4},
		{"19:00", "22:00", 1500, 2},
		{"22:00", "00:00", 500, 1},
	}
	if d := cmp.Diff(want, steps(t, s), cmp.AllowUnexported(stepWant{})); d != "" {
		t.Errorf("schedule (-want +got):\n%s", d)
	}
	if s.PeakQPS != 3500 || s.Instances != 4 {
		t.Errorf("peak %v, instances %d; want 3500 and 4", s.PeakQPS, s.Instances)
	}
	tp := s.Traffic
	if tp.InstanceHoursPerDay != 62 || tp.FlatInstanceHoursPerDay != 96 || !tp.Daily || tp.TimeZone != "+01:00" {
		t.Errorf("traffic plan %+v; want 62 vs 96 instance-hours, daily, +01:00", tp)
	}
	if *s.CostPerDay != 155 || *s.FlatCostPerDay != 240 {
		t.Errorf("cost per day %v vs flat %v; want 155 vs 240", *s.CostPerDay, *s.FlatCostPerDay)
	}
	if len(tp.Hours) != 24 || tp.Hours[12].Need != 3 || tp.Hours[12].Instances != 4 || tp.Hours[18].Need != 2 || tp.Hours[18].Instances != 4 {
		t.Errorf("hours 12 and 18: %+v, %+v; want need 3 → 4 and need 2 → 4", tp.Hours[12], tp.Hours[18])
	}
	// The schedule's times keep the curve's zone.
	if _, off := s.Schedule[0].From.Zone(); off != 3600 {
		t.Errorf("schedule zone offset %d s, want 3600", off)
	}
}

// Changing the lead time and the window moves the steps by exactly that.
func TestScheduleWindows(t *testing.T) {
	c := readCurve(t, "day.csv")
	tests := []struct {
		name         string
		lead, window time.Duration
		want         []stepWant
	}{
		{"none: the need itself", NoWindow, NoWindow, []stepWant{
			{"00:00", "07:00", 500, 1}, {"07:00", "09:00", 1500, 2}, {"09:00", "12:00", 3500, 4},
			{"12:00", "13:00", 2500, 3}, {"13:00", "18:00", 3500, 4}, {"18:00", "21:00", 1500, 2}, {"21:00", "00:00", 500, 1}}},
		{"two hours ahead, none after", 2 * time.Hour, NoWindow, []stepWant{
			{"00:00", "05:00", 500, 1}, {"05:00", "07:00", 1500, 2}, {"07:00", "18:00", 3500, 4},
			{"18:00", "21:00", 1500, 2}, {"21:00", "00:00", 500, 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Plan(knee(1000), Input{Headroom: 1, Traffic: c, LeadTime: tt.lead, ScaleInAfter: tt.window})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, steps(t, s), cmp.AllowUnexported(stepWant{})); d != "" {
				t.Errorf("schedule (-want +got):\n%s", d)
			}
		})
	}
}

// A Prometheus range-query export of two pods is summed per timestamp;
// a 3-hour curve is not daily, and its cost is scaled to a day.
//
//	rates 100 100 300 300 200 200 at 30-minute steps from 01:00 UTC,
//	1 instance per 100 rps, lead and window 30 min:
//	01:00–01:30 1, 01:30–03:30 3, 03:30–04:00 2 = 7.5 instance-hours in 3 h = 60 a day; flat 3 × 24 = 72
func TestSchedulePrometheus(t *testing.T) {
	c := readCurve(t, "prom.json")
	if c.Peak() != 300 || c.Step != 30*time.Minute || c.Daily() || c.Zone() != "UTC" {
		t.Fatalf("curve: peak %v step %v daily %v zone %s", c.Peak(), c.Step, c.Daily(), c.Zone())
	}
	s, err := Plan(knee(100), Input{Headroom: 1, Traffic: c, LeadTime: 30 * time.Minute, ScaleInAfter: 30 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	want := []stepWant{{"01:00", "01:30", 100, 1}, {"01:30", "03:30", 300, 3}, {"03:30", "04:00", 200, 2}}
	if d := cmp.Diff(want, steps(t, s), cmp.AllowUnexported(stepWant{})); d != "" {
		t.Errorf("schedule (-want +got):\n%s", d)
	}
	if s.Traffic.InstanceHoursPerDay != 60 || s.Traffic.FlatInstanceHoursPerDay != 72 {
		t.Errorf("instance-hours %v vs %v, want 60 vs 72", s.Traffic.InstanceHoursPerDay, s.Traffic.FlatInstanceHoursPerDay)
	}
	so, err := s.KEDAObject(KEDAOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Not daily: the cron triggers name the date.
	if got := so.Spec.Triggers[0].Metadata["start"]; got != "30 1 30 11 *" {
		t.Errorf("first cron start %q, want \"30 1 30 11 *\"", got)
	}
}

// A range query from midnight to midnight holds both ends: the closing
// sample is the next day's first, folded in, and the curve is daily.
func TestReadTrafficClosedDay(t *testing.T) {
	var b strings.Builder
	for h := 0; h <= 24; h++ {
		q := 100
		if h == 24 {
			q = 150 // the next midnight, busier
		}
		b.WriteString(time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC).Add(time.Duration(h) * time.Hour).Format(time.RFC3339))
		b.WriteString("," + strconv.Itoa(q) + "\n")
	}
	c, err := ReadTraffic("day.csv", strings.NewReader(b.String()), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Points) != 24 || !c.Daily() || c.Points[0].QPS != 150 {
		t.Errorf("%d points, daily %v, first %v; want 24, daily, 150", len(c.Points), c.Daily(), c.Points[0].QPS)
	}
}

func TestReadTrafficErrors(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"empty", "", "empty file"},
		{"one point", "2026-11-30T00:00:00Z,5\n", "1 points, want at least 2"},
		{"bad qps", "timestamp,qps\n2026-11-30T00:00:00Z,-1\n", `c.csv:2: bad traffic curve: qps "-1"`},
		{"bad time", "yesterday,5\n", `c.csv:1: bad traffic curve: timestamp "yesterday"`},
		{"unsorted", "2026-11-30T01:00:00Z,5\n2026-11-30T00:00:00Z,5\n", "c.csv:2: bad traffic curve: timestamp 2026-11-30T00:00:00Z is not after"},
		{"three fields", "2026-11-30T01:00:00Z,5,6\n", "3 fields, want 2"},
		{"all zero", "0,0\n60,0\n", "every rate is 0"},
		{"prom vector", `{"status":"success","data":{"resultType":"vector","result":[]}}`, `resultType is "vector"`},
		{"prom value", `{"status":"success","data":{"resultType":"matrix","result":[{"values":[[1,"x"]]}]}}`, `values[0]: value "x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadTraffic("c.csv", strings.NewReader(tt.in), nil)
			if err == nil || !errors.Is(err, ErrBadTraffic) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ReadTraffic(%q) = %v, want an ErrBadTraffic containing %q", tt.in, err, tt.want)
			}
		})
	}
}

// strict decodes a manifest, rejecting any field its type does not have.
func strict(t *testing.T, doc string, into any) {
	t.Helper()
	if err := yaml.UnmarshalStrict([]byte(doc), into); err != nil {
		t.Fatalf("strict decoding:\n%s\n%v", doc, err)
	}
}

// The manifests decode strictly into their types, and say what the plan
// says: KEDA's cron triggers are the schedule's steps above its floor, in
// the curve's zone as an IANA name; the Prometheus trigger and the HPA
// target the rate per instance; both scale up at once and down after 300 s.
func TestManifests(t *testing.T) {
	s, err := Plan(knee(1000), Input{Headroom: 1.25, Traffic: readCurve(t, "day.csv")})
	if err != nil {
		t.Fatal(err)
	}
	var hpa autoscalingv2.HorizontalPodAutoscaler
	strict(t, s.Autoscaler.HPA, &hpa)
	sp := hpa.Spec
	if hpa.Kind != "HorizontalPodAutoscaler" || hpa.APIVersion != "autoscaling/v2" || *sp.MinReplicas != 1 || sp.MaxReplicas != 10 ||
		sp.Metrics[0].Pods.Target.AverageValue.String() != "800" {
		t.Errorf("HPA: %s %s min %d max %d target %s; want min 1 (the schedule's floor), max 10, target 800",
			hpa.APIVersion, hpa.Kind, *sp.MinReplicas, sp.MaxReplicas, sp.Metrics[0].Pods.Target.AverageValue)
	}
	checkBehavior(t, sp.Behavior)

	doc, err := s.KEDAYAML(KEDAOptions{PrometheusURL: "http://prom:9090"})
	if err != nil {
		t.Fatal(err)
	}
	var so ScaledObject
	strict(t, doc, &so)
	if so.APIVersion != "keda.sh/v1alpha1" || so.Kind != "ScaledObject" || *so.Spec.MinReplicaCount != 1 {
		t.Errorf("ScaledObject %s %s min %d", so.APIVersion, so.Kind, *so.Spec.MinReplicaCount)
	}
	// With headroom 1.25 the day needs 1, 2, 5, 4, 5, 2, 1 (ceil(q × 1.25 / 1000)).
	type cron struct{ tz, start, end, n string }
	var got []cron
	for _, tr := range so.Spec.Triggers[:len(so.Spec.Triggers)-1] {
		if tr.Type != "cron" {
			t.Fatalf("trigger %+v, want cron", tr)
		}
		m := tr.Metadata
		got = append(got, cron{m["timezone"], m["start"], m["end"], m["desiredReplicas"]})
	}
	want := []cron{
		{"Etc/GMT-1", "0 6 * * *", "0 8 * * *", "2"},
		{"Etc/GMT-1", "0 8 * * *", "0 19 * * *", "5"},
		{"Etc/GMT-1", "0 19 * * *", "0 22 * * *", "2"},
	}
	if d := cmp.Diff(want, got, cmp.AllowUnexported(cron{})); d != "" {
		t.Errorf("cron triggers (-want +got):\n%s", d)
	}
	p := so.Spec.Triggers[len(so.Spec.Triggers)-1]
	if p.Type != "prometheus" || p.Metadata["threshold"] != "800" || p.Metadata["serverAddress"] != "http://prom:9090" ||
		!strings.Contains(p.Metadata["query"], `service="svc"`) {
		t.Errorf("prometheus trigger %+v", p)
	}
	checkBehavior(t, so.Spec.Advanced.HorizontalPodAutoscalerConfig.Behavior)

	// Without a curve there is no schedule for KEDA.
	flat, _ := Plan(knee(1000), Input{PeakQPS: 100})
	if _, err := flat.KEDAYAML(KEDAOptions{}); !errors.Is(err, ErrNoSchedule) {
		t.Errorf("KEDA without a curve: %v, want ErrNoSchedule", err)
	}
}

func checkBehavior(t *testing.T, b *autoscalingv2.HorizontalPodAutoscalerBehavior) {
	t.Helper()
	if b == nil || *b.ScaleUp.StabilizationWindowSeconds != 0 || *b.ScaleDown.StabilizationWindowSeconds < 300 {
		t.Errorf("behavior %+v: want scale-up at once and scale-down stabilised >= 300 s", b)
	}
}

// The sizing JSON carries the contract's keys with a curve and a price,
// and round-trips. (Its text and markdown are report's golden files.)
func TestScheduleJSON(t *testing.T) {
	s, err := Plan(knee(1000), Input{Headroom: 1, CostPerInstanceHour: 2.5, Traffic: readCurve(t, "day.csv")})
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(js, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"schedule", "cost_per_day", "flat_cost_per_day"} {
		if m[k] == nil {
			t.Errorf("sizing JSON lacks %q", k)
		}
	}
	st := m["schedule"].([]any)[1].(map[string]any)
	if st["from"] != "2026-11-30T06:00:00+01:00" || st["to"] != "2026-11-30T08:00:00+01:00" || st["qps"] != 1500.0 || st["instances"] != 2.0 {
		t.Errorf("schedule[1] = %v", st)
	}
	var back Sizing
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(*s, back); d != "" {
		t.Errorf("round trip (-want +got):\n%s", d)
	}
	keda, err := s.KEDAYAML(KEDAOptions{})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "day.keda.yaml", []byte(keda))
}

// The PR comment's daily cost delta.
func TestCompareCostPerDay(t *testing.T) {
	c := readCurve(t, "day.csv")
	base, _ := Plan(knee(1000), Input{Headroom: 1, CostPerInstanceHour: 2.5, Traffic: c})
	cand, _ := Plan(knee(800), Input{Headroom: 1, CostPerInstanceHour: 2.5, Traffic: c})
	d := Compare(base, cand)
	if d.CostPerDayDelta == nil || *d.CostPerDayDelta != *cand.CostPerDay-*base.CostPerDay || *d.CostPerDayDelta <= 0 {
		t.Fatalf("cost per day delta %v (base %v, cand %v)", d.CostPerDayDelta, *base.CostPerDay, *cand.CostPerDay)
	}
}

// A name from perfgate.yaml with line breaks stays inside the manifests'
// comment line: it adds no YAML of its own.
func TestManifestsNameInjection(t *testing.T) {
	res := knee(1000)
	res.Scenario = "svc\nkind: Secret\r\u2028data: {}"
	s, err := Plan(res, Input{Headroom: 1, Traffic: readCurve(t, "day.csv")})
	if err != nil {
		t.Fatal(err)
	}
	keda, err := s.KEDAYAML(KEDAOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for name, doc := range map[string]string{"HPA": s.Autoscaler.HPA, "KEDA": keda} {
		first, _, _ := strings.Cut(doc, "\n")
		if !strings.HasPrefix(first, "# perfgate: svc kind: Secret") || strings.Contains(doc, "\nkind: Secret") || strings.Contains(doc, "\ndata:") {
			t.Errorf("%s manifest carries the name's lines as YAML:\n%s", name, doc)
		}
	}
	var hpa autoscalingv2.HorizontalPodAutoscaler
	strict(t, s.Autoscaler.HPA, &hpa)
}
