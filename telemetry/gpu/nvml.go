//go:build linux && cgo

package gpu

import (
	"fmt"
	"math"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/perfgate/perfgate/result"
)

// mib is one mebibyte in bytes.
const mib = 1 << 20

// Sampler reads every GPU NVML sees. It is not safe for concurrent use:
// one goroutine samples.
type Sampler struct {
	lib  nvml.Interface
	devs []*nvDevice
}

// nvDevice is one GPU with its GPM state.
type nvDevice struct {
	index int
	name  string
	h     nvml.Device
	// gpm is true while GPM metrics work on this device; prev and cur are
	// its two GPM sample buffers and havePrev says prev holds a reading.
	gpm       bool
	prev, cur nvml.GpmSample
	havePrev  bool
	// noEventReasons is set once nvmlDeviceGetCurrentClocksEventReasons
	// proved missing (drivers before 535), so the older throttle call is used.
	noEventReasons bool
}

// Open loads libnvidia-ml, initializes NVML and opens every device. It
// returns an error wrapping ErrNoGPU when the library cannot be loaded or
// there is no device.
func Open() (*Sampler, error) {
	return NewSampler(nvml.New())
}

// NewSampler initializes lib and opens its devices; tests pass go-nvml's
// mock. On error lib is shut down again.
func NewSampler(lib nvml.Interface) (*Sampler, error) {
	if ret := lib.Init(); ret != nvml.SUCCESS {
		return nil, fmt.Errorf("%w: initializing NVML: %v", ErrNoGPU, ret)
	}
	s := &Sampler{lib: lib}
	n, ret := lib.DeviceGetCount()
	if ret != nvml.SUCCESS {
		s.Close()
		return nil, fmt.Errorf("%w: counting devices: %v", ErrNoGPU, ret)
	}
	for i := range n {
		h, ret := lib.DeviceGetHandleByIndex(i)
		if ret != nvml.SUCCESS {
			s.Close()
			return nil, fmt.Errorf("opening GPU %d: %v", i, ret)
		}
		name, ret := h.GetName()
		if ret != nvml.SUCCESS {
			name = fmt.Sprintf("GPU %d", i)
		}
		d := &nvDevice{index: i, name: name, h: h}
		s.initGPM(d)
		s.devs = append(s.devs, d)
	}
	if len(s.devs) == 0 {
		s.Close()
		return nil, fmt.Errorf("%w: NVML found no device", ErrNoGPU)
	}
	return s, nil
}

// initGPM enables GPM metrics on d when the device supports them and two
// sample buffers can be allocated.
func (s *Sampler) initGPM(d *nvDevice) {
	sup, ret := d.h.GpmQueryDeviceSupport()
	if ret != nvml.SUCCESS || sup.IsSupportedDevice == 0 {
		return
	}
	a, ret := s.lib.GpmSampleAlloc()
	if ret != nvml.SUCCESS {
		return
	}
	b, ret := s.lib.GpmSampleAlloc()
	if ret != nvml.SUCCESS {
		s.lib.GpmSampleFree(a)
		return
	}
	d.gpm, d.prev, d.cur = true, a, b
}

// Devices names the open devices.
func (s *Sampler) Devices() []Info {
	out := make([]Info, len(s.devs))
	for i, d := range s.devs {
		out[i] = Info{Index: d.index, Name: d.name}
	}
	return out
}

// Reset forgets the previous GPM samples, so the next Sample starts a new
// interval instead of spanning the time since the last window.
func (s *Sampler) Reset() {
	for _, d := range s.devs {
		d.havePrev = false
	}
}

// Sample reads every device once. A figure a device cannot give is NaN.
// With GPM, the utilization figures cover the time since the previous
// Sample (none after Reset: the first call only takes the GPM sample).
func (s *Sampler) Sample() []Sample {
	out := make([]Sample, len(s.devs))
	for i, d := range s.devs {
		out[i] = s.sampleOne(d)
	}
	return out
}

func (s *Sampler) sampleOne(d *nvDevice) Sample {
	x := Unknown(d.index)
	if !d.gpm || !s.sampleGPM(d, &x) {
		if u, ret := d.h.GetUtilizationRates(); ret == nvml.SUCCESS {
			x.SMUtilPct, x.MemBWUtilPct, x.Source = float64(u.Gpu), float64(u.Memory), SourceUtilization
		}
	}
	if m, ret := d.h.GetMemoryInfo(); ret == nvml.SUCCESS {
		x.MemUsedMiB = float64(m.Used) / mib
	}
	if p, ret := d.h.GetPowerUsage(); ret == nvml.SUCCESS {
		x.PowerW = float64(p) / 1000 // NVML reports milliwatts
	}
	if c, ret := d.h.GetClockInfo(nvml.CLOCK_SM); ret == nvml.SUCCESS {
		x.SMClockMHz = float64(c)
	}
	if t, ret := d.h.GetTemperature(nvml.TEMPERATURE_GPU); ret == nvml.SUCCESS {
		x.TemperatureC = float64(t)
	}
	x.ThrottleReasons, x.ThrottleKnown = s.throttle(d)
	return x
}

// sampleGPM takes a GPM sample and, when an earlier one exists, fills x's
// utilization figures from the two. It returns false when GPM failed this
// time, so the caller falls back to utilization rates; after a failed call
// GPM is switched off for the device.
func (s *Sampler) sampleGPM(d *nvDevice, x *Sample) bool {
	if ret := s.lib.GpmSampleGet(d.h, d.cur); ret != nvml.SUCCESS {
		d.gpm = false
		return false
	}
	d.prev, d.cur = d.cur, d.prev
	if !d.havePrev {
		// The first reading after Reset only opens the interval: no figures,
		// and no utilization-rates figure either, so sources do not mix.
		d.havePrev = true
		return true
	}
	mg := nvml.GpmMetricsGetType{
		NumMetrics: uint32(len(gpmMetrics)),
		Sample1:    d.cur, // the older sample, after the swap
		Sample2:    d.prev,
	}
	for i, id := range gpmMetrics {
		mg.Metrics[i].MetricId = uint32(id)
	}
	if ret := s.lib.GpmMetricsGet(&mg); ret != nvml.SUCCESS {
		d.gpm = false
		return false
	}
	get := func(m nvml.GpmMetric) float64 {
		if nvml.Return(m.NvmlReturn) != nvml.SUCCESS {
			return math.NaN()
		}
		return m.Value
	}
	sm, occ, bw := get(mg.Metrics[0]), get(mg.Metrics[1]), get(mg.Metrics[2])
	if math.IsNaN(sm) || math.IsNaN(bw) {
		return false
	}
	pipe := math.NaN()
	for i := 3; i < len(gpmMetrics); i++ {
		if v := get(mg.Metrics[i]); !math.IsNaN(v) && (math.IsNaN(pipe) || v > pipe) {
			pipe = v
		}
	}
	x.SMUtilPct, x.SMOccupancyPct, x.MemBWUtilPct, x.PipeUtilPct, x.Source = sm, occ, bw, pipe, SourceGPM
	return true
}

// gpmMetrics are the GPM metrics read per sample: SM utilization, SM
// occupancy and DRAM bandwidth first, then the arithmetic pipes whose
// maximum is PipeUtilPct.
var gpmMetrics = []nvml.GpmMetricId{
	nvml.GPM_METRIC_SM_UTIL,
	nvml.GPM_METRIC_SM_OCCUPANCY,
	nvml.GPM_METRIC_DRAM_BW_UTIL,
	nvml.GPM_METRIC_ANY_TENSOR_UTIL,
	nvml.GPM_METRIC_FP64_UTIL,
	nvml.GPM_METRIC_FP32_UTIL,
	nvml.GPM_METRIC_FP16_UTIL,
	nvml.GPM_METRIC_INTEGER_UTIL,
}

// throttle reads the clock event reasons, falling back to the older
// throttle reasons call on drivers that lack the newer one.
func (s *Sampler) throttle(d *nvDevice) (uint64, bool) {
	if !d.noEventReasons {
		r, ret := d.h.GetCurrentClocksEventReasons()
		if ret == nvml.SUCCESS {
			return r, true
		}
		if ret != nvml.ERROR_FUNCTION_NOT_FOUND {
			return 0, false
		}
		d.noEventReasons = true
	}
	r, ret := d.h.GetCurrentClocksThrottleReasons()
	return r, ret == nvml.SUCCESS
}

// Environment describes every device for the environment fingerprint:
// name, driver, CUDA driver version, memory, MIG mode and UUID.
func (s *Sampler) Environment() ([]result.GPU, error) {
	driver, ret := s.lib.SystemGetDriverVersion()
	if ret != nvml.SUCCESS {
		driver = ""
	}
	cuda := ""
	if v, ret := s.lib.SystemGetCudaDriverVersion(); ret == nvml.SUCCESS && v > 0 {
		cuda = fmt.Sprintf("%d.%d", v/1000, v%1000/10)
	}
	var out []result.GPU
	for _, d := range s.devs {
		g := result.GPU{Name: d.name, Driver: driver, CUDA: cuda}
		if m, ret := d.h.GetMemoryInfo(); ret == nvml.SUCCESS {
			g.MemoryMiB = int64(m.Total / mib)
		}
		if cur, _, ret := d.h.GetMigMode(); ret == nvml.SUCCESS {
			g.MIG = "disabled"
			if cur == nvml.DEVICE_MIG_ENABLE {
				g.MIG = "enabled"
			}
		}
		if u, ret := d.h.GetUUID(); ret == nvml.SUCCESS {
			g.UUID = u
		}
		out = append(out, g)
	}
	return out, nil
}

// Close frees the GPM buffers and shuts NVML down.
func (s *Sampler) Close() error {
	for _, d := range s.devs {
		if d.gpm {
			s.lib.GpmSampleFree(d.prev)
			s.lib.GpmSampleFree(d.cur)
			d.gpm = false
		}
	}
	if ret := s.lib.Shutdown(); ret != nvml.SUCCESS {
		return fmt.Errorf("shutting NVML down: %v", ret)
	}
	return nil
}

// Environment opens NVML, describes every GPU and closes it again. The
// error wraps ErrNoGPU when there is no usable GPU.
func Environment() ([]result.GPU, error) {
	s, err := Open()
	if err != nil {
		return nil, err
	}
	defer s.Close()
	return s.Environment()
}
