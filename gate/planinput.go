package gate

import (
	"fmt"
	"time"

	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/internal/capread"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/sizing"
)

// planInput is what cfg's capacity section asks sizing for: the peak, the
// headroom, the price and, with capacity.traffic, the curve with its lead
// time and scale-in window. ok is false when nothing is to be planned.
func planInput(cfg *config.Config) (in sizing.Input, ok bool, err error) {
	cp := cfg.Capacity
	in = sizing.Input{PeakQPS: cp.PeakQPS, Headroom: cp.Headroom, CostPerInstanceHour: cp.CostPerInstanceHour}
	if p := cfg.TrafficPath(); p != "" {
		f, err := capread.Open(p, capread.Traffic)
		if err != nil {
			return in, false, fmt.Errorf("capacity.traffic: %w", err)
		}
		defer f.Close()
		if in.Traffic, err = sizing.ReadTraffic(cp.Traffic, f, nil); err != nil {
			return in, false, fmt.Errorf("capacity.traffic: %w", err)
		}
	}
	in.LeadTime, in.ScaleInAfter = window(cp.LeadTime), window(cp.ScaleInAfter)
	return in, in.PeakQPS > 0 || in.Traffic != nil, nil
}

// window maps a configured window to sizing's: unset is the default, 0s
// is none.
func window(d *config.Duration) time.Duration {
	switch {
	case d == nil:
		return 0
	case d.D() == 0:
		return sizing.NoWindow
	}
	return d.D()
}

// wholeFor returns the whole-device result a partition result r is
// compared with, from the same run, or nil when r ran on no partition.
func wholeFor(cfg *config.Config, r *result.Result, cand []*result.Result) (*result.Result, error) {
	if r.Partition == nil {
		return nil, nil
	}
	var s *config.Scenario
	for _, x := range cfg.Scenarios {
		if x.Name == r.Scenario {
			s = x
		}
	}
	if s == nil || s.Partition == nil {
		return nil, fmt.Errorf("partition %s: scenario %q is not in the config", r.Partition.Name, r.Scenario)
	}
	name, err := cfg.WholeDevice(s)
	if err != nil {
		return nil, err
	}
	for _, w := range cand {
		if w.Scenario == name {
			return w, nil
		}
	}
	return nil, fmt.Errorf("partition %s: the whole-device scenario %q was not measured in this run", r.Partition.Name, name)
}

// wholeName is r's scenario name, or "" for nil.
func wholeName(r *result.Result) string {
	if r == nil {
		return ""
	}
	return r.Scenario
}
