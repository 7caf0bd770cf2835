package result

import "fmt"

// SummaryOf recomputes a summary from trials, for a result whose trials
// changed after it was measured: processes of one scenario merged (suite),
// independent runs combined into a baseline (baselines), a rerun's trials
// appended (gate), trials after a target's death dropped. A result must
// agree with itself (Check refuses a summary that is not its trials' sum).
//
// From the trials: the request and error counts and classes, the error
// rate, the achieved rate and (when prev had one: an open loop) the
// offered rate, weighted by each trial's window; the time-average number
// in flight, weighted by each trial's window as well (it is a time
// average: trials of processes whose automatic windows differ count by
// their length); latency and, when the trials kept them, service time
// from the merged histograms; the schedule lag, generator scheduling and
// run-queue delays as the worst trial's; the generator's CPU as the mean
// of the trials that measured it. What no trial holds (the connection
// wait) is prev's. A trial without a window counts as one second.
//
// The error is a histogram that could not be merged; the summary is then
// complete but for the latency.
func SummaryOf(trials []Trial, prev Summary) (Summary, error) {
	s := prev
	s.Requests, s.Errors, s.ErrorRate, s.ErrorsBy = 0, 0, 0, nil
	var completed, offered, secs, infl, cpu, nCPU float64
	var lag, sched, runq float64
	svc := NewHistogram()
	hasSvc := false
	var errs []error
	for _, t := range trials {
		s.Requests += t.Requests
		s.Errors += t.Errors
		for c, n := range t.ErrorsBy {
			if s.ErrorsBy == nil {
				s.ErrorsBy = map[string]int64{}
			}
			s.ErrorsBy[c] += n
		}
		d := t.DurationS
		if d <= 0 {
			d = 1
		}
		secs += d
		completed += t.AchievedRPS * d
		offered += t.OfferedRPS * d
		infl += t.InFlightMean * d
		if t.GeneratorCPU > 0 {
			cpu += t.GeneratorCPU
			nCPU++
		}
		lag = max(lag, t.LagP99Ms)
		sched = max(sched, t.GeneratorSchedP99Ms)
		runq = max(runq, t.GeneratorRunQueueMs)
		if t.ServiceHistogram != "" {
			h, err := DecodeHistogram(t.ServiceHistogram)
			if err == nil {
				err = Merge(svc, h)
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("service time: %w", err))
				continue
			}
			hasSvc = true
		}
	}
	if s.Requests > 0 {
		s.ErrorRate = float64(s.Errors) / float64(s.Requests)
	}
	if secs > 0 {
		s.AchievedRPS, s.InFlightMean = completed/secs, infl/secs
		if prev.OfferedRPS > 0 {
			s.OfferedRPS = offered / secs
		}
	}
	if nCPU > 0 {
		s.GeneratorCPU = cpu / nCPU
	}
	if lag > 0 {
		s.LagP99Ms = lag
	}
	if sched > 0 {
		s.GeneratorSchedP99Ms = sched
	}
	if runq > 0 {
		s.GeneratorRunQueueMs = runq
	}
	if hasSvc {
		l := LatencyOf(svc)
		s.Service = &l
	}
	if h, err := MergeTrials(trials); err == nil {
		s.Latency = LatencyOf(h)
	} else {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return s, errs[0]
	}
	return s, nil
}
