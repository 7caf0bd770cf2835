package gpu

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"sort"

	"github.com/perfgate/perfgate/result"
)

// ErrNoGPU is returned (wrapped, with the reason) when NVML cannot be
// loaded or finds no device.
var ErrNoGPU = errors.New("no GPU")

// Utilization sources, recorded in result.GPUStats.UtilSource.
const (
	SourceGPM         = "gpm"
	SourceUtilization = "utilization-rates"
)

// Sample is one reading of one GPU. A figure that could not be read is NaN
// (or, for the throttle reasons, ThrottleKnown is false).
type Sample struct {
	Index int
	// SMUtilPct and MemBWUtilPct are in percent; Source says where they came
	// from (SourceGPM or SourceUtilization).
	SMUtilPct      float64
	MemBWUtilPct   float64
	SMOccupancyPct float64
	// PipeUtilPct is the busiest arithmetic pipe (GPM only).
	PipeUtilPct  float64
	Source       string
	MemUsedMiB   float64
	PowerW       float64
	SMClockMHz   float64
	TemperatureC float64
	// ThrottleReasons is NVML's clock event reason bit mask.
	ThrottleReasons uint64
	ThrottleKnown   bool
}

// Unknown returns a sample of device index with every figure unknown.
func Unknown(index int) Sample {
	nan := math.NaN()
	return Sample{Index: index, SMUtilPct: nan, MemBWUtilPct: nan, SMOccupancyPct: nan, PipeUtilPct: nan,
		MemUsedMiB: nan, PowerW: nan, SMClockMHz: nan, TemperatureC: nan}
}

// Info names one device for the summary.
type Info struct {
	Index int
	Name  string
}

// throttleNames maps NVML's clock event reason bits (nvmlClocksEventReason*,
// formerly nvmlClocksThrottleReason*) to the names perfgate reports. The
// values are fixed by nvml.h.
var throttleNames = []struct {
	bit  uint64
	name string
}{
	{0x1, "gpu_idle"},
	{0x2, "applications_clocks_setting"},
	{0x4, "sw_power_cap"},
	{0x8, "hw_slowdown"},
	{0x10, "sync_boost"},
	{0x20, "sw_thermal_slowdown"},
	{0x40, "hw_thermal_slowdown"},
	{0x80, "hw_power_brake_slowdown"},
	{0x100, "display_clock_setting"},
	{0x200, "board_limit"},
	{0x400, "reliability"},
}

// ThrottleNames returns the names of the reasons set in mask, in bit order;
// a bit NVML defines after this list is named by its hex value.
func ThrottleNames(mask uint64) []string {
	var names []string
	for mask != 0 {
		b := uint64(1) << bits.TrailingZeros64(mask)
		mask &^= b
		name := fmt.Sprintf("0x%x", b)
		for _, t := range throttleNames {
			if t.bit == b {
				name = t.name
				break
			}
		}
		names = append(names, name)
	}
	return names
}

// acc accumulates one figure: a sum, a maximum and a count of known values.
type acc struct {
	sum, max float64
	n        int
}

func (a *acc) add(v float64) {
	if math.IsNaN(v) {
		return
	}
	if a.n == 0 || v > a.max {
		a.max = v
	}
	a.sum += v
	a.n++
}

func (a *acc) stat() result.Stat {
	return result.Stat{Mean: round2(a.sum / float64(a.n)), Max: round2(a.max)}
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }

// device is the running summary of one GPU.
type device struct {
	sm, bw, occ, pipe, mem, power, clock, temp acc
	throttle                                   uint64
	throttleKnown                              bool
	sources                                    map[string]int
	samples                                    int
}

// Window summarizes the samples of one measurement window. The zero value
// is ready to use; it is not safe for concurrent use.
type Window struct {
	devs map[int]*device
}

// Add records one reading of each device.
func (w *Window) Add(samples []Sample) {
	if w.devs == nil {
		w.devs = make(map[int]*device)
	}
	for _, s := range samples {
		d := w.devs[s.Index]
		if d == nil {
			d = &device{sources: make(map[string]int)}
			w.devs[s.Index] = d
		}
		d.samples++
		d.sm.add(s.SMUtilPct)
		d.bw.add(s.MemBWUtilPct)
		d.occ.add(s.SMOccupancyPct)
		d.pipe.add(s.PipeUtilPct)
		d.mem.add(s.MemUsedMiB)
		d.power.add(s.PowerW)
		d.clock.add(s.SMClockMHz)
		d.temp.add(s.TemperatureC)
		if !math.IsNaN(s.SMUtilPct) && s.Source != "" {
			d.sources[s.Source]++
		}
		if s.ThrottleKnown {
			d.throttle |= s.ThrottleReasons
			d.throttleKnown = true
		}
	}
}

// Samples returns the number of readings recorded for the busiest device.
func (w *Window) Samples() int {
	n := 0
	for _, d := range w.devs {
		n = max(n, d.samples)
	}
	return n
}

// Stats summarizes the window, one entry per device in infos that has at
// least one reading. Figures with no known value are named in Unavailable
// instead of being reported as zero. MemUsedMiB is the window's peak.
// ThrottleReasons is the union of the reasons seen in the window.
func (w *Window) Stats(infos []Info) []result.GPUStats {
	var out []result.GPUStats
	for _, info := range infos {
		d := w.devs[info.Index]
		if d == nil || d.samples == 0 {
			continue
		}
		g := result.GPUStats{Index: info.Index, Name: info.Name, Samples: d.samples}
		if d.sm.n > 0 {
			g.SMUtilPct = d.sm.stat()
		} else {
			g.Unavailable = append(g.Unavailable, "sm_util_pct")
		}
		if d.bw.n > 0 {
			g.MemBWUtilPct = d.bw.stat()
		} else {
			g.Unavailable = append(g.Unavailable, "mem_bw_util_pct")
		}
		if d.occ.n > 0 {
			s := d.occ.stat()
			g.SMOccupancyPct = &s
		}
		if d.pipe.n > 0 {
			s := d.pipe.stat()
			g.PipeUtilPct = &s
		}
		if d.mem.n > 0 {
			g.MemUsedMiB = round2(d.mem.max)
		} else {
			g.Unavailable = append(g.Unavailable, "mem_used_mib")
		}
		if d.power.n > 0 {
			g.PowerW = d.power.stat()
		} else {
			g.Unavailable = append(g.Unavailable, "power_w")
		}
		if d.clock.n > 0 {
			s := d.clock.stat()
			g.SMClockMHz = &s
		}
		if d.temp.n > 0 {
			s := d.temp.stat()
			g.TemperatureC = &s
		}
		if d.throttleKnown {
			g.ThrottleReasons = ThrottleNames(d.throttle)
		}
		g.UtilSource = majority(d.sources)
		out = append(out, g)
	}
	return out
}

// majority returns the source most readings came from ("" when none);
// ties go to the name that sorts first, so the result is deterministic.
func majority(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	best, n := "", 0
	for _, k := range keys {
		if m[k] > n {
			best, n = k, m[k]
		}
	}
	return best
}
