package config

import (
	"fmt"
	"reflect"
)

// Pair declares two scenarios to be compared with each other in one run,
// measured by the same interleaved, paired design as `gate --ab`
// (package ab): the base variant and the candidate variant of one layer
// (fp32 → int8 weights, batching off → on, JSON → gRPC), or two
// rungs of a ladder. Both run from
// the current checkout; they differ in their target, args, env or
// protocol, never in their load, so that the comparison is like for like.
type Pair struct {
	// Name labels the pair in the comparison; empty: "BASE → HEAD".
	Name string `yaml:"name,omitempty"`
	// Base and Head name the two scenarios.
	Base string `yaml:"base"`
	Head string `yaml:"head"`
}

// Label is the pair's name, its default filled in.
func (p Pair) Label() string {
	if p.Name != "" {
		return p.Name
	}
	return p.Base + " → " + p.Head
}

// ScenarioNamed returns the scenario named name, or nil.
func (c *Config) ScenarioNamed(name string) *Scenario {
	for _, s := range c.Scenarios {
		if s != nil && s.Name == name {
			return s
		}
	}
	return nil
}

// validatePairs checks the pairs: each names two different scenarios that
// perfgate starts (a url would have both sides hit one service), with the
// same load, and no label is used twice.
func (c *Config) validatePairs() error {
	labels := map[string]bool{}
	for i, p := range c.Pairs {
		at := fmt.Sprintf("pairs[%d]", i)
		var sides [2]*Scenario
		for k, name := range []string{p.Base, p.Head} {
			key := at + "." + [2]string{"base", "head"}[k]
			if name == "" {
				return c.errAt(key, "missing: a pair names its base and its head scenario")
			}
			s := c.ScenarioNamed(name)
			if s == nil {
				return c.errAt(key, "no scenario is named %q", name)
			}
			if s.URL != "" {
				return c.errAt(key, "scenario %q tests a url perfgate does not start, so both sides would hit one service: give it a target", name)
			}
			sides[k] = s
		}
		if p.Base == p.Head {
			return c.errAt(at+".head", "%q is the base too: a pair compares two different scenarios", p.Head)
		}
		if !reflect.DeepEqual(sides[0].Load, sides[1].Load) {
			return c.errAt(at+".head", "scenario %q's load differs from %q's: a pair compares two variants under the same load (give both the same load)", p.Head, p.Base)
		}
		if labels[p.Label()] {
			return c.errAt(at+".name", "the pair %q is declared twice", p.Label())
		}
		labels[p.Label()] = true
	}
	return nil
}
