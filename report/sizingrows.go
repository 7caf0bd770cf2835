package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/perfgate/perfgate/sizing"
)

// sizingRows are the plan as label/value rows with every formula's numbers
// filled in; SizingText and SizingMarkdown both render them. cell escapes
// the untrusted parts (names and sources from perfgate.yaml): plain for a
// terminal, esc for markdown; the rest is perfgate's own text.
func sizingRows(s *sizing.Sizing, cell func(string) string) [][2]string {
	b := s.PerInstanceMaxQPSBracket
	knee := num(s.PerInstanceMaxQPS) + " rps"
	switch {
	case s.CapacityAtLeast:
		knee = "≥ " + knee + " (passed at the search's max rate"
	case s.PerInstanceMaxQPSInterval != nil:
		iv := s.PerInstanceMaxQPSInterval
		knee += fmt.Sprintf(" (%s, 95%% interval [%s, %s]; search bracket [%s, %s]", s.PerInstanceMaxQPSBasis, num(iv[0]), num(iv[1]), num(b[0]), num(b[1]))
	case b[1] > 0:
		knee += fmt.Sprintf(" (bracket [%s, %s]", num(b[0]), num(b[1]))
	default:
		knee += " (no failing probe"
	}
	if s.Windows > 0 {
		knee += fmt.Sprintf(", %d windows", s.Windows)
	}
	knee += ")"
	rows := [][2]string{
		{"SLO", fmt.Sprintf("P99 <= %s ms", num(s.SLOP99Ms))},
		{"per-instance max QPS", knee},
		{"peak", fmt.Sprintf("%s rps × headroom %s", num(s.PeakQPS), num(s.Headroom))},
		{"plan", s.Formula},
	}
	r := s.InstancesRange
	rng := fmt.Sprintf("%d–%d", r[0], r[1])
	if s.CapacityAtLeast {
		rng = fmt.Sprintf("at most %d (the knee is above the max rate)", s.Instances)
	}
	if b[1] > s.PerInstanceMaxQPS {
		rng += fmt.Sprintf(" (ceil(%s × %s / %s) = %d … ceil(%s × %s / %s) = %d)",
			num(s.PeakQPS), num(s.Headroom), num(b[1]), r[0],
			num(s.PeakQPS), num(s.Headroom), num(s.PerInstanceMaxQPS), r[1])
	}
	rows = append(rows, [2]string{"instances range", rng})
	w, wAt := s.LatencyAtKneeMs, fmt.Sprintf("%s latency at %s rps", s.LatencyBasis, num(s.PerInstanceMaxQPS))
	if s.LatencyAtOperatingMs > 0 {
		w, wAt = s.LatencyAtOperatingMs, fmt.Sprintf("latency at the operating rate %s rps, %s; %s ms at the knee", num(s.OperatingQPS), s.OperatingBasis, num(s.LatencyAtKneeMs))
	}
	if w > 0 {
		rows = append(rows,
			[2]string{"concurrency at peak", fmt.Sprintf("L = λ·W = %s rps × %s ms = %s in flight (W: %s)",
				num(s.PeakQPS), num(w), num(s.ConcurrencyAtPeak), wAt)})
	}
	a := s.Autoscaler
	rows = append(rows, [2]string{"autoscaler target", fmt.Sprintf("%s / %s = %s rps per instance",
		num(s.PerInstanceMaxQPS), num(s.Headroom), num(a.TargetQPSPerInstance))})
	if w > 0 {
		rows = append(rows, [2]string{"queue depth target", fmt.Sprintf("%s rps × %s ms = %s in flight per instance",
			num(a.TargetQPSPerInstance), num(w), num(a.QueueDepthPerInstance))})
	}
	if s.CostPerMonth != nil {
		rows = append(rows, [2]string{"cost", fmt.Sprintf("%d × %s/h × %d h = %s per month",
			s.Instances, money(s.CostPerInstanceHour), sizing.HoursPerMonth, money(*s.CostPerMonth))})
	}
	if lc := s.Little; lc != nil {
		verdict := "holds"
		if !lc.OK {
			verdict = "does not hold"
		}
		rows = append(rows, [2]string{"Little's Law at the knee", fmt.Sprintf("measured %.1f in flight, λ·W %.1f (%+.1f%%): %s",
			lc.MeasuredInFlight, lc.PredictedInFlight, 100*lc.RelGap, verdict)})
	}
	return append(rows, sizingExtraRows(s, cell)...)
}

// sizingExtraRows are the rows of the cache, partition and traffic plans.
func sizingExtraRows(s *sizing.Sizing, cell func(string) string) [][2]string {
	var rows [][2]string
	if cp := s.Cache; cp != nil {
		v := fmt.Sprintf("%s hit rate %s%% (%s)", cell(cp.Source), num(100*cp.MeasuredHitRate), cell(cp.Unit))
		if cp.Applied {
			v += fmt.Sprintf("; planned at %s%%: misses %s rps at peak, %s misses/s per instance at the knee → %s rps per instance",
				num(100*cp.HitRate), num(cp.MissQPSAtPeak), num(cp.MissQPSPerInstance), num(cp.EffectiveMaxQPS))
		} else {
			v += ": reported, not planned on"
		}
		rows = append(rows, [2]string{"cache", v})
	}
	if pp := s.Partition; pp != nil {
		rows = append(rows, [2]string{"partition", fmt.Sprintf("%s × %d per device: %s rps per device vs %s rps whole (%s)",
			cell(pp.Name), pp.PerDevice, num(pp.PerDeviceMaxQPS), num(pp.WholeDeviceMaxQPS), cell(pp.WholeScenario))})
		v := pp.Formula + ": " + pp.Recommend
		if pp.CostPerMonthPartitioned != nil {
			v += fmt.Sprintf(" (%s vs %s per month)", money(*pp.CostPerMonthPartitioned), money(*pp.CostPerMonthWhole))
		}
		rows = append(rows, [2]string{"recommend", v})
	}
	if tp := s.Traffic; tp != nil {
		shape := "not daily"
		if tp.Daily {
			shape = "daily"
		}
		rows = append(rows, [2]string{"traffic", fmt.Sprintf("%s (%s, %s, %s per point); scale out %v ahead, in %v after",
			cell(tp.Source), cell(tp.TimeZone), shape, secs(tp.StepS), secs(tp.LeadTimeS), secs(tp.ScaleInAfterS))})
		v := fmt.Sprintf("%s instance-hours per day scheduled vs %s flat", num(tp.InstanceHoursPerDay), num(tp.FlatInstanceHoursPerDay))
		if s.CostPerDay != nil && s.FlatCostPerDay != nil {
			v = fmt.Sprintf("%s per day scheduled vs %s flat (%s)", money(*s.CostPerDay), money(*s.FlatCostPerDay),
				signedMoney(*s.CostPerDay-*s.FlatCostPerDay))
		}
		rows = append(rows, [2]string{"cost per day", v})
	}
	return rows
}

// secs renders seconds as a Go duration.
func secs(x float64) time.Duration { return time.Duration(x * float64(time.Second)) }

// scheduleText renders the schedule and the hour-by-hour plan, one line
// each, for a terminal.
func scheduleText(s *sizing.Sizing) string {
	if len(s.Schedule) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "schedule (%s; instances include the lead time and the scale-in window):\n", plain(s.Traffic.TimeZone))
	for _, st := range s.Schedule {
		fmt.Fprintf(&b, "  %s – %s  %3d instances  (sized for %s rps)\n", stamp(st.From), stamp(st.To), st.Instances, num(st.QPS))
	}
	b.WriteString("hour by hour (peak rps → instances needed → scheduled):\n")
	for _, h := range s.Traffic.Hours {
		fmt.Fprintf(&b, "  %s  %10s rps  %3d → %3d\n", stamp(h.Hour), num(h.QPS), h.Need, h.Instances)
	}
	return b.String()
}

// scheduleMarkdown renders the schedule as a collapsed table.
func scheduleMarkdown(s *sizing.Sizing) string {
	if len(s.Schedule) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n<details><summary>Schedule (%s): %d steps</summary>\n\n| from | to | sized for rps | instances |\n| --- | --- | --- | --- |\n",
		esc(s.Traffic.TimeZone), len(s.Schedule))
	for _, st := range s.Schedule {
		fmt.Fprintf(&b, "| %s | %s | %s | %d |\n", stamp(st.From), stamp(st.To), num(st.QPS), st.Instances)
	}
	b.WriteString("\n</details>\n")
	return b.String()
}

// stamp is a time as the schedule prints it.
func stamp(t time.Time) string { return t.Format("2006-01-02 15:04") }
