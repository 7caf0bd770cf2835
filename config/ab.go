package config

import "fmt"

// AB shapes a same-runner A/B run (`perfgate gate --ab REF`): the base
// revision and the current checkout measured on the same runner,
// interleaved.
type AB struct {
	// Resident is "both" (the default: both sides' targets run side by
	// side, the load alternating between them) or "one" (one side's target
	// at a time, for a GPU without memory for two: each switch of side
	// starts a fresh process, its warm-up excluded).
	Resident string `yaml:"resident,omitempty"`
	// MaxTrials is the most trials per side (pairs) per scenario, 2 to
	// 200; default DefaultABMaxTrials. It is also the fixed design the
	// report compares the adaptive stopping with.
	MaxTrials int `yaml:"max_trials,omitempty"`
	// Budget bounds each scenario's A/B time (0: no bound but MaxTrials);
	// when set, 1s to 24h.
	Budget Duration `yaml:"budget,omitempty"`
	// Design is how a fixed-load scenario's two sides are measured:
	// "interleaved" (the default: ABBA order, one side at a time) or
	// "concurrent" (both sides at once, the same open-loop schedule sent
	// to each; see ab.Duet). Knee searches, closed loops and automatic
	// warm-ups are measured interleaved under either.
	Design string `yaml:"design,omitempty"`
}

// A/B defaults.
const (
	DefaultABResident  = "both"
	DefaultABMaxTrials = 20
	DefaultABDesign    = DesignInterleaved
)

// The A/B designs (ab.design, gate --design).
const (
	DesignInterleaved = "interleaved"
	DesignConcurrent  = "concurrent"
)

// CheckABDesign reports a design that is neither DesignInterleaved nor
// DesignConcurrent ("" is the default).
func CheckABDesign(d string) error {
	if d != "" && d != DesignInterleaved && d != DesignConcurrent {
		return fmt.Errorf("%q: want interleaved (one side at a time, ABBA; the default) or concurrent (both sides at once, the same schedule to each)", d)
	}
	return nil
}

// ABResident returns the residency, its default filled in.
func (a AB) ABResident() string {
	if a.Resident == "" {
		return DefaultABResident
	}
	return a.Resident
}

// ABMaxTrials returns the most pairs per scenario, its default filled in.
func (a AB) ABMaxTrials() int {
	if a.MaxTrials == 0 {
		return DefaultABMaxTrials
	}
	return a.MaxTrials
}

// validateAB checks the ab section and the targets' build argv.
func (c *Config) validateAB() error {
	a := c.AB
	if a.Resident != "" && a.Resident != "both" && a.Resident != "one" {
		return c.errAt("ab.resident", "%q: want both (side by side, the default) or one (one at a time, for a GPU without memory for two)", a.Resident)
	}
	if err := CheckABDesign(a.Design); err != nil {
		return c.errAt("ab.design", "%v", err)
	}
	if a.Design == DesignConcurrent && a.Resident == "one" {
		return c.errAt("ab.design", "concurrent runs both sides' targets at once, and resident: one runs one at a time: drop one of them")
	}
	// max_trials and budget are checked with the other numbers (Bounds).
	for name, t := range c.Targets {
		if t == nil {
			continue
		}
		for i, arg := range t.Build {
			if i == 0 && arg == "" {
				return c.errAt(fmt.Sprintf("targets.%s.build", name), "the program is empty: build is an argv, e.g. [make, server]")
			}
		}
	}
	return nil
}
