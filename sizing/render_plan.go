package sizing

import (
	"github.com/perfgate/perfgate/internal/textfmt"

	"fmt"
	"strings"
	"time"
)

// extraLines are the rows of the cache, partition and traffic plans.
func (s *Sizing) extraLines() [][2]string {
	var rows [][2]string
	if cp := s.Cache; cp != nil {
		v := fmt.Sprintf("%s hit rate %s%% (%s)", cp.Source, num(100*cp.MeasuredHitRate), cp.Unit)
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
			pp.Name, pp.PerDevice, num(pp.PerDeviceMaxQPS), num(pp.WholeDeviceMaxQPS), pp.WholeScenario)})
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
			tp.Source, tp.TimeZone, shape, secs(tp.StepS), secs(tp.LeadTimeS), secs(tp.ScaleInAfterS))})
		v := fmt.Sprintf("%s instance-hours per day scheduled vs %s flat", num(tp.InstanceHoursPerDay), num(tp.FlatInstanceHoursPerDay))
		if s.CostPerDay != nil && s.FlatCostPerDay != nil {
			v = fmt.Sprintf("%s per day scheduled vs %s flat (%s)", money(*s.CostPerDay), money(*s.FlatCostPerDay),
				signedMoneyDay(*s.CostPerDay-*s.FlatCostPerDay))
		}
		rows = append(rows, [2]string{"cost per day", v})
	}
	return rows
}

// secs renders seconds as a Go duration.
func secs(x float64) time.Duration { return time.Duration(x * float64(time.Second)) }

func signedMoneyDay(x float64) string { return textfmt.SignedMoney(x) }

// scheduleText renders the schedule and the hour-by-hour plan, one line
// each, for a terminal.
func (s *Sizing) scheduleText() string {
	if len(s.Schedule) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "schedule (%s; instances include the lead time and the scale-in window):\n", s.Traffic.TimeZone)
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
func (s *Sizing) scheduleMarkdown() string {
	if len(s.Schedule) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n<details><summary>Schedule (%s): %d steps</summary>\n\n| from | to | sized for rps | instances |\n| --- | --- | --- | --- |\n",
		s.Traffic.TimeZone, len(s.Schedule))
	for _, st := range s.Schedule {
		fmt.Fprintf(&b, "| %s | %s | %s | %d |\n", stamp(st.From), stamp(st.To), num(st.QPS), st.Instances)
	}
	b.WriteString("\n</details>\n")
	return b.String()
}

// stamp is a time as the schedule prints it.
func stamp(t time.Time) string { return t.Format("2006-01-02 15:04") }
