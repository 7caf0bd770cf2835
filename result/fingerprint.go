package result

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Fingerprint is what must match between a baseline's environment and a
// candidate's for their numbers to be comparable: the accelerators and the
// CPU. The host name, OS and perfgate version are deliberately left out
// (a runner's name changes; a version bump is what is being measured).
type Fingerprint struct {
	// GPUModel is the GPU name, or the sorted distinct names joined by "+"
	// for a mixed host; empty without GPUs.
	GPUModel string `json:"gpu_model,omitempty"`
	GPUCount int    `json:"gpu_count"`
	Driver   string `json:"driver,omitempty"`
	CUDA     string `json:"cuda,omitempty"`
	// MIG is "enabled", "disabled", or "" when unknown.
	MIG   string `json:"mig,omitempty"`
	CPU   string `json:"cpu,omitempty"`
	Cores int    `json:"cores,omitempty"`
}

// FingerprintOf extracts env's fingerprint.
func FingerprintOf(env Environment) Fingerprint {
	f := Fingerprint{GPUCount: len(env.GPUs), CPU: strings.Join(strings.Fields(env.CPU), " "), Cores: env.Cores}
	names := map[string]bool{}
	for _, g := range env.GPUs {
		names[strings.TrimSpace(g.Name)] = true
		f.Driver = firstNonEmpty(f.Driver, g.Driver)
		f.CUDA = firstNonEmpty(f.CUDA, g.CUDA)
		f.MIG = firstNonEmpty(f.MIG, g.MIG)
	}
	var ns []string
	for n := range names {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	f.GPUModel = strings.Join(ns, "+")
	return f
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return strings.TrimSpace(b)
}

// String is a one-line summary: "2× NVIDIA H200 (driver 550.54, CUDA 12.4,
// MIG disabled), AMD EPYC 9654 × 16 cores", or "no GPU, …".
func (f Fingerprint) String() string {
	var b strings.Builder
	if f.GPUCount == 0 {
		b.WriteString("no GPU")
	} else {
		fmt.Fprintf(&b, "%d× %s", f.GPUCount, f.GPUModel)
		var parts []string
		if f.Driver != "" {
			parts = append(parts, "driver "+f.Driver)
		}
		if f.CUDA != "" {
			parts = append(parts, "CUDA "+f.CUDA)
		}
		if f.MIG != "" {
			parts = append(parts, "MIG "+f.MIG)
		}
		if len(parts) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(parts, ", "))
		}
	}
	cpu := f.CPU
	if cpu == "" {
		cpu = "unknown CPU"
	}
	fmt.Fprintf(&b, ", %s", cpu)
	if f.Cores > 0 {
		fmt.Fprintf(&b, " × %d cores", f.Cores)
	}
	return b.String()
}

// Diff compares a baseline's fingerprint (f) with a candidate's (c).
// Mismatches are fields known on both sides that differ; GPU model and
// count always count, since "no GPU" is known. Unknowns are fields known on
// only one side: they cannot be checked and are worth a warning.
func (f Fingerprint) Diff(c Fingerprint) (mismatches, unknowns []string) {
	check := func(name, a, b string, always bool) {
		switch {
		case a == b:
		case always || (a != "" && b != ""):
			mismatches = append(mismatches, fmt.Sprintf("%s: baseline %s, candidate %s", name, orNone(a), orNone(b)))
		default:
			unknowns = append(unknowns, fmt.Sprintf("%s unknown on one side (baseline %s, candidate %s)", name, orNone(a), orNone(b)))
		}
	}
	check("gpu model", f.GPUModel, c.GPUModel, true)
	check("gpu count", strconv.Itoa(f.GPUCount), strconv.Itoa(c.GPUCount), true)
	check("gpu driver", f.Driver, c.Driver, false)
	check("cuda version", f.CUDA, c.CUDA, false)
	check("mig mode", f.MIG, c.MIG, false)
	check("cpu model", f.CPU, c.CPU, false)
	cores := func(n int) string {
		if n == 0 {
			return ""
		}
		return strconv.Itoa(n)
	}
	check("cpu cores", cores(f.Cores), cores(c.Cores), false)
	return mismatches, unknowns
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
