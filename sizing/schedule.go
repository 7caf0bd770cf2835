package sizing

import (
	"time"
)

// Scheduled scaling defaults.
const (
	// DefaultLeadTime is how long before a predicted rise the schedule
	// scales out: new instances must be running (image pulled, model
	// loaded, warmed up) when the traffic arrives.
	DefaultLeadTime = time.Hour
	// DefaultScaleInAfter is the stabilisation window before the schedule
	// scales in after a fall: a short lull does not shed capacity that the
	// next burst needs.
	DefaultScaleInAfter = time.Hour
	// MaxScheduleWindow bounds the lead time and the scale-in window.
	MaxScheduleWindow = 24 * time.Hour
)

// Step is one entry of the schedule: from From to To, run Instances, sized
// for QPS, the highest rate seen from one lead time ahead to one scale-in
// window back. Times are in the curve's time zone.
type Step struct {
	From      time.Time `json:"from"`
	To        time.Time `json:"to"`
	QPS       float64   `json:"qps"`
	Instances int       `json:"instances"`
}

// Hour is one hour of the plan: the highest rate in the hour, the
// instances that rate alone needs, and the instances the schedule runs
// (which include the lead time and the scale-in window).
type Hour struct {
	Hour      time.Time `json:"hour"`
	QPS       float64   `json:"qps"`
	Need      int       `json:"need"`
	Instances int       `json:"instances"`
}

// TrafficPlan is how a traffic curve was turned into the schedule.
type TrafficPlan struct {
	Source   string `json:"source"`
	TimeZone string `json:"time_zone"`
	// Daily is true when the curve is one whole day: the schedule repeats
	// daily and wraps around midnight.
	Daily         bool    `json:"daily"`
	StepS         float64 `json:"step_s"`
	SpanS         float64 `json:"span_s"`
	LeadTimeS     float64 `json:"lead_time_s"`
	ScaleInAfterS float64 `json:"scale_in_after_s"`
	// Hours is the plan hour by hour.
	Hours []Hour `json:"hours"`
	// InstanceHoursPerDay is what the schedule runs, Σ instances × hours,
	// scaled to 24 h; FlatInstanceHoursPerDay is a fleet sized for the peak
	// all day (instances × 24).
	InstanceHoursPerDay     float64 `json:"instance_hours_per_day"`
	FlatInstanceHoursPerDay float64 `json:"flat_instance_hours_per_day"`
}

// interval is one curve point's span with its need.
type interval struct {
	from, to time.Time
	qps      float64
	need     int
}

// schedule plans curve c for a per-instance capacity perInstance under
// headroom h: each point's interval runs the most instances any interval
// from lead ahead to window back needs. It returns the merged steps and
// the hour-by-hour plan.
//
// For interval i = [s_i, e_i) the instances are
//
//	max { need_j : s_j < e_i + lead and e_j > s_i − window }
//
// with need_j = ceil(qps_j × h / perInstance): scaling out one lead time
// before the rise at s_j, and in only one window after the fall at e_j.
// A daily curve wraps around: its first hour sees the last hour's traffic
// of the day before, and its last hour the next morning's.
func schedule(c *Curve, perInstance, h float64, lead, window time.Duration) ([]Step, *TrafficPlan) {
	n := len(c.Points)
	base := make([]interval, n)
	for i, p := range c.Points {
		base[i] = interval{from: p.At, to: c.end(i), qps: p.QPS, need: instancesFor(p.QPS, h, perInstance)}
	}
	// The neighbours a daily curve wraps to: copies a day (and two)
	// before and after.
	ext := base
	if c.Daily() {
		ext = nil
		for k := -2; k <= 2; k++ {
			for _, iv := range base {
				d := time.Duration(k) * 24 * time.Hour
				ext = append(ext, interval{from: iv.from.Add(d), to: iv.to.Add(d), qps: iv.qps, need: iv.need})
			}
		}
	}
	// A sliding window maximum (monotonic deques) over ext: both ends of
	// the window move forward as i does.
	sched := make([]int, n)
	qps := make([]float64, n)
	var dqN, dqQ []int // indices into ext, decreasing need / qps
	lo, hi := 0, 0     // ext[lo:hi] is the window
	for i := range base {
		start, end := base[i].from.Add(-window), base[i].to.Add(lead)
		for hi < len(ext) && ext[hi].from.Before(end) {
			for len(dqN) > 0 && ext[dqN[len(dqN)-1]].need <= ext[hi].need {
				dqN = dqN[:len(dqN)-1]
			}
			dqN = append(dqN, hi)
			for len(dqQ) > 0 && ext[dqQ[len(dqQ)-1]].qps <= ext[hi].qps {
				dqQ = dqQ[:len(dqQ)-1]
			}
			dqQ = append(dqQ, hi)
			hi++
		}
		for lo < hi && !ext[lo].to.After(start) {
			lo++
		}
		for len(dqN) > 0 && dqN[0] < lo {
			dqN = dqN[1:]
		}
		for len(dqQ) > 0 && dqQ[0] < lo {
			dqQ = dqQ[1:]
		}
		sched[i], qps[i] = ext[dqN[0]].need, ext[dqQ[0]].qps
	}

	// Merge equal neighbours into steps.
	var steps []Step
	for i, iv := range base {
		if k := len(steps) - 1; k >= 0 && steps[k].Instances == sched[i] {
			steps[k].To = iv.to
			steps[k].QPS = max(steps[k].QPS, qps[i])
			continue
		}
		steps = append(steps, Step{From: iv.from, To: iv.to, QPS: round(qps[i], 2), Instances: sched[i]})
	}
	for i := range steps {
		steps[i].QPS = round(steps[i].QPS, 2)
	}

	tp := &TrafficPlan{
		Source: c.Source, TimeZone: c.Zone(), Daily: c.Daily(),
		StepS: c.Step.Seconds(), SpanS: c.Span().Seconds(),
		LeadTimeS: lead.Seconds(), ScaleInAfterS: window.Seconds(),
	}
	// Hour by hour, in the curve's zone.
	var instHours float64
	peakNeed := 0
	for i, iv := range base {
		instHours += float64(sched[i]) * iv.to.Sub(iv.from).Hours()
		peakNeed = max(peakNeed, iv.need)
		for hs := hourOf(iv.from); hs.Before(iv.to); hs = hs.Add(time.Hour) {
			k := len(tp.Hours) - 1
			if k < 0 || !tp.Hours[k].Hour.Equal(hs) {
				tp.Hours = append(tp.Hours, Hour{Hour: hs})
				k++
			}
			hr := &tp.Hours[k]
			hr.QPS = max(hr.QPS, round(iv.qps, 2))
			hr.Need = max(hr.Need, iv.need)
			hr.Instances = max(hr.Instances, sched[i])
		}
	}
	days := c.Span().Hours() / 24
	tp.InstanceHoursPerDay = round(instHours/days, 2)
	tp.FlatInstanceHoursPerDay = float64(peakNeed * 24)
	return steps, tp
}

// hourOf is the start of t's hour in t's own zone.
func hourOf(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), 0, 0, 0, t.Location())
}
