package config

import (
	"fmt"
	"time"
)

// Capacity-planning keys: ranges.
const (
	// MaxScheduleWindow bounds capacity.lead_time and scale_in_after.
	MaxScheduleWindow = 24 * time.Hour
	// MaxPartitionsPerDevice bounds partition.per_device (MIG allows 7).
	MaxPartitionsPerDevice = 64
)

// validateCapacityPlan checks capacity.traffic, lead_time and
// scale_in_after.
func (c *Config) validateCapacityPlan() error {
	for _, w := range []struct {
		key string
		d   *Duration
	}{{"capacity.lead_time", c.Capacity.LeadTime}, {"capacity.scale_in_after", c.Capacity.ScaleInAfter}} {
		if w.d != nil && (*w.d < 0 || w.d.D() > MaxScheduleWindow) {
			return c.errAt(w.key, "%v is out of range: want 0s to %v", w.d.D(), MaxScheduleWindow)
		}
	}
	if (c.Capacity.LeadTime != nil || c.Capacity.ScaleInAfter != nil) && c.Capacity.Traffic == "" {
		return c.errAt("capacity.traffic", "missing: lead_time and scale_in_after plan a schedule over a traffic curve (timestamp,qps CSV)")
	}
	return nil
}

// validatePlanKeys checks a scenario's partition and repeat.
func (c *Config) validatePlanKeys(sp string, s *Scenario) error {
	if r := float64(s.Repeat); r < 0 || r >= 1 {
		return c.errAt(sp+".repeat", "%v%% is out of range: want 0%% up to, not including, 100%% (a body file repeats every request)", r*100)
	}
	if s.Repeat > 0 {
		switch {
		case !protocolTraits(s.Protocol).VariesInputs:
			return c.errAt(sp+".repeat", "protocol %s: perfgate varies the inputs of kserve-http and kserve-grpc (random tensors) and openai (synthetic prompts) only", s.Protocol)
		case s.Body != "":
			return c.errAt(sp+".repeat", "scenario %q sends one body file: every request repeats it; drop body to send random inputs, a fraction of them repeated", s.Name)
		case s.Dataset != "":
			return c.errAt(sp+".repeat", "scenario %q sends a dataset's prompts as given; drop dataset to send synthetic prompts, a fraction of them repeated", s.Name)
		}
	}
	p := s.Partition
	if p == nil {
		return nil
	}
	pp := sp + ".partition"
	if p.Name == "" {
		return c.errAt(pp+".name", "missing: the partition's name, e.g. 1g.10gb")
	}
	if p.PerDevice < 1 || p.PerDevice > MaxPartitionsPerDevice {
		return c.errAt(pp+".per_device", "%d is out of range: want 1 to %d partitions per device", p.PerDevice, MaxPartitionsPerDevice)
	}
	if s.Load.Mode != "sweep" {
		return c.errAt(pp, "scenario %q declares a partition but does not sweep: sizing compares knees (load mode: sweep)", s.Name)
	}
	if p.Whole != "" {
		w := c.scenario(p.Whole)
		switch {
		case w == nil:
			return c.errAt(pp+".whole", "no scenario is named %q", p.Whole)
		case w.Partition != nil || w.Load.Mode != "sweep":
			return c.errAt(pp+".whole", "scenario %q must sweep a whole device (load mode: sweep, no partition)", p.Whole)
		}
	}
	return nil
}

// scenario returns the scenario named n, or nil.
func (c *Config) scenario(n string) *Scenario {
	for _, s := range c.Scenarios {
		if s != nil && s.Name == n {
			return s
		}
	}
	return nil
}

// WholeDevice returns the name of the scenario measuring the whole device
// that partition scenario s is compared with: partition.whole, or else the
// one sweep scenario with s's model and protocol and no partition. ok is
// false when there is none or more than one.
func (c *Config) WholeDevice(s *Scenario) (name string, err error) {
	if s.Partition == nil {
		return "", fmt.Errorf("scenario %q declares no partition", s.Name)
	}
	if s.Partition.Whole != "" {
		return s.Partition.Whole, nil
	}
	var found []string
	for _, w := range c.Scenarios {
		if w != nil && w != s && w.Partition == nil && w.Load.Mode == "sweep" && w.Model == s.Model && w.Protocol == s.Protocol {
			found = append(found, w.Name)
		}
	}
	if len(found) != 1 {
		return "", fmt.Errorf("scenario %q: %d whole-device sweeps of model %q (%v): name one with partition.whole", s.Name, len(found), s.Model, found)
	}
	return found[0], nil
}

// TrafficPath is capacity.traffic resolved against the config's folder,
// or "" when none is configured.
func (c *Config) TrafficPath() string {
	if c.Capacity.Traffic == "" {
		return ""
	}
	return c.Resolve(c.Capacity.Traffic)
}
