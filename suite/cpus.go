package suite

import (
	"fmt"

	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/internal/cpuset"
	"github.com/perfgate/perfgate/result"
)

// CPUIsolation is the CPU sets of a run (generator_cpus, a target's
// cpus). cmd/perfgate pins its own process (cpuset.Pin) to
// Generator, as PlanGenerator decides, and passes this in Options.CPUs.
type CPUIsolation struct {
	// Host is the CPUs perfgate could run on before it pinned itself:
	// where a target's set may lie, and the set a target without one
	// runs on (not the generator's, which it would otherwise inherit).
	Host cpuset.Set
	// Generator is the set perfgate pinned itself to; nil if none.
	Generator cpuset.Set
	// NotApplied says why a set asked for was not applied.
	NotApplied []string
}

// PlanGenerator decides perfgate's own CPU set from list (generator_cpus
// or --generator-cpus; empty: none) on a host whose perfgate may use the
// CPUs host: the set to pin to, or nil with the reason in iso.NotApplied.
// A list that names CPUs the host lacks is not applied, so that one
// config runs on a small runner too.
func PlanGenerator(list string, host cpuset.Set) (*CPUIsolation, error) {
	iso := &CPUIsolation{Host: host}
	if list == "" {
		return iso, nil
	}
	set, err := cpuset.Parse(list)
	if err != nil {
		return nil, fmt.Errorf("generator_cpus: %w", err)
	}
	if len(host) == 0 {
		iso.NotApplied = append(iso.NotApplied, fmt.Sprintf("generator_cpus %q: CPU sets are applied on Linux only", list))
		return iso, nil
	}
	if miss := set.Missing(host); len(miss) > 0 {
		iso.NotApplied = append(iso.NotApplied, fmt.Sprintf("generator_cpus %q: this host lets perfgate use CPUs %s only (no %s): the generator ran unpinned", list, host, miss))
		return iso, nil
	}
	iso.Generator = set
	return iso, nil
}

// targetCPUs is the CPU set target t starts on, and why a set it asks
// for was not applied: its cpus when the host has them; else, when
// perfgate pinned itself, the host's CPUs (so that the target does not
// inherit the generator's); else none.
func targetCPUs(t *config.Target, iso *CPUIsolation) (cpuset.Set, string) {
	if iso == nil {
		iso = &CPUIsolation{}
	}
	fallback := cpuset.Set(nil)
	if len(iso.Generator) > 0 {
		fallback = iso.Host
	}
	if t == nil || t.CPUs == "" {
		return fallback, ""
	}
	set, err := cpuset.Parse(t.CPUs) // checked by config
	if err != nil {
		return fallback, fmt.Sprintf("targets.%s.cpus: %v", t.Name, err)
	}
	if len(iso.Host) == 0 {
		return fallback, fmt.Sprintf("targets.%s.cpus %q: CPU sets are applied on Linux only", t.Name, t.CPUs)
	}
	if miss := set.Missing(iso.Host); len(miss) > 0 {
		return fallback, fmt.Sprintf("targets.%s.cpus %q: this host lets perfgate use CPUs %s only (no %s): the target ran unpinned", t.Name, t.CPUs, iso.Host, miss)
	}
	return set, ""
}

// cpuRecord is what the result of scenario s records of the CPU sets:
// nil when none was asked for.
func cpuRecord(cfg *config.Plan, s *config.Scenario, o Options) *result.CPUs {
	t := cfg.Targets[s.Target]
	if s.URL != "" {
		t = nil
	}
	asked := o.CPUs != nil && (len(o.CPUs.Generator) > 0 || len(o.CPUs.NotApplied) > 0)
	if !asked && (t == nil || t.CPUs == "") {
		return nil
	}
	iso := o.CPUs
	if iso == nil {
		iso = &CPUIsolation{}
		if host, err := cpuset.Allowed(); err == nil {
			iso.Host = host
		}
	}
	rec := &result.CPUs{Generator: iso.Generator.String(), Allowed: iso.Host.String(),
		NotApplied: append([]string{}, iso.NotApplied...)}
	if t != nil && t.CPUs != "" {
		set, why := targetCPUs(t, iso)
		if why != "" {
			rec.NotApplied = append(rec.NotApplied, why)
		} else {
			rec.Target = set.String()
		}
	}
	if len(rec.NotApplied) == 0 {
		rec.NotApplied = nil
	}
	return rec
}
