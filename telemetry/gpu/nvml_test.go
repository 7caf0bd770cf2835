//go:build linux && cgo

package gpu

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/perfgate/perfgate/result"
)

// fakeGPU scripts one device's readings: call k of a reading returns the
// k-th value (the last one repeats).
type fakeGPU struct {
	util     []nvml.Utilization
	power    []uint32 // milliwatts
	usedMiB  uint64
	clock    uint32
	temp     uint32
	reasons  uint64
	noEvents bool // the driver lacks nvmlDeviceGetCurrentClocksEventReasons
	noPower  bool
	gpm      bool
	// gpmSM and gpmBW are the GPM figures for the interval ending at GPM
	// sample k (k ≥ 1).
	gpmSM, gpmBW []float64
	// gpmTensor and gpmFP32 are two of the pipe figures, constant.
	gpmTensor, gpmFP32 float64
	calls, pcalls      int
}

func at[T any](xs []T, k int) T { return xs[min(k, len(xs)-1)] }

// h200 is the device name the mock machine reports.
const h200 = "NVIDIA H200"

// newMachine returns go-nvml's mock interface for a machine with one
// device per fake: driver 550.54.15, CUDA 12.4, 141 GiB H200s.
func newMachine(devs ...*mock.Device) *mock.Interface {
	return &mock.Interface{
		InitFunc:                       func() nvml.Return { return nvml.SUCCESS },
		ShutdownFunc:                   func() nvml.Return { return nvml.SUCCESS },
		DeviceGetCountFunc:             func() (int, nvml.Return) { return len(devs), nvml.SUCCESS },
		SystemGetDriverVersionFunc:     func() (string, nvml.Return) { return "550.54.15", nvml.SUCCESS },
		SystemGetCudaDriverVersionFunc: func() (int, nvml.Return) { return 12040, nvml.SUCCESS },
		DeviceGetHandleByIndexFunc: func(i int) (nvml.Device, nvml.Return) {
			if i < 0 || i >= len(devs) {
				return nil, nvml.ERROR_INVALID_ARGUMENT
			}
			return devs[i], nvml.SUCCESS
		},
	}
}

// newDevice returns a mock H200 with the given index and memory in use.
func newDevice(index int, usedMiB uint64) *mock.Device {
	mig := nvml.DEVICE_MIG_DISABLE
	d := &mock.Device{
		GetNameFunc: func() (string, nvml.Return) { return h200, nvml.SUCCESS },
		GetUUIDFunc: func() (string, nvml.Return) {
			return fmt.Sprintf("GPU-00000000-0000-0000-0000-%012d", index), nvml.SUCCESS
		},
		GetMemoryInfoFunc: func() (nvml.Memory, nvml.Return) {
			return nvml.Memory{Total: 144384 << 20, Used: usedMiB << 20, Free: (144384 - usedMiB) << 20}, nvml.SUCCESS
		},
		GetMigModeFunc: func() (int, int, nvml.Return) { return mig, mig, nvml.SUCCESS },
	}
	return d
}

// newServer returns a mock machine with one device per fake, wired so that
// the sampler's calls go to the fakes.
func newServer(t *testing.T, fakes ...*fakeGPU) *mock.Interface {
	t.Helper()
	devs := make([]*mock.Device, len(fakes))
	index := map[nvml.Device]int{}
	// held records which device and which GPM reading a sample buffer holds.
	type reading struct{ dev, seq int }
	held := map[nvml.GpmSample]reading{}
	gpmCount := make([]int, len(fakes))
	for i, f := range fakes {
		d := newDevice(i, f.usedMiB)
		devs[i] = d
		index[d] = i
		d.GetUtilizationRatesFunc = func() (nvml.Utilization, nvml.Return) {
			f.calls++
			return at(f.util, f.calls-1), nvml.SUCCESS
		}
		d.GetPowerUsageFunc = func() (uint32, nvml.Return) {
			if f.noPower {
				return 0, nvml.ERROR_NOT_SUPPORTED
			}
			f.pcalls++
			return at(f.power, f.pcalls-1), nvml.SUCCESS
		}
		d.GetClockInfoFunc = func(c nvml.ClockType) (uint32, nvml.Return) {
			if c != nvml.CLOCK_SM {
				t.Errorf("GetClockInfo(%v), want CLOCK_SM", c)
			}
			return f.clock, nvml.SUCCESS
		}
		d.GetTemperatureFunc = func(nvml.TemperatureSensors) (uint32, nvml.Return) { return f.temp, nvml.SUCCESS }
		d.GetCurrentClocksEventReasonsFunc = func() (uint64, nvml.Return) {
			if f.noEvents {
				return 0, nvml.ERROR_FUNCTION_NOT_FOUND
			}
			return f.reasons, nvml.SUCCESS
		}
		d.GetCurrentClocksThrottleReasonsFunc = func() (uint64, nvml.Return) { return f.reasons, nvml.SUCCESS }
		d.GpmQueryDeviceSupportFunc = func() (nvml.GpmSupport, nvml.Return) {
			if !f.gpm {
				return nvml.GpmSupport{}, nvml.SUCCESS
			}
			return nvml.GpmSupport{IsSupportedDevice: 1}, nvml.SUCCESS
		}
	}
	s := newMachine(devs...)
	s.GpmSampleAllocFunc = func() (nvml.GpmSample, nvml.Return) { return &mock.GpmSample{}, nvml.SUCCESS }
	s.GpmSampleFreeFunc = func(g nvml.GpmSample) nvml.Return { delete(held, g); return nvml.SUCCESS }
	s.GpmSampleGetFunc = func(dev nvml.Device, g nvml.GpmSample) nvml.Return {
		i := index[dev]
		held[g] = reading{i, gpmCount[i]}
		gpmCount[i]++
		return nvml.SUCCESS
	}
	s.GpmMetricsGetFunc = func(mg *nvml.GpmMetricsGetType) nvml.Return {
		a, b := held[mg.Sample1], held[mg.Sample2]
		if a.dev != b.dev || b.seq != a.seq+1 {
			t.Errorf("GpmMetricsGet over readings %+v and %+v, want consecutive readings of one device", a, b)
			return nvml.ERROR_INVALID_ARGUMENT
		}
		f := fakes[a.dev]
		for k := range mg.NumMetrics {
			m := &mg.Metrics[k]
			switch nvml.GpmMetricId(m.MetricId) {
			case nvml.GPM_METRIC_SM_UTIL:
				m.Value = at(f.gpmSM, b.seq)
			case nvml.GPM_METRIC_DRAM_BW_UTIL:
				m.Value = at(f.gpmBW, b.seq)
			case nvml.GPM_METRIC_ANY_TENSOR_UTIL:
				m.Value = f.gpmTensor
			case nvml.GPM_METRIC_FP32_UTIL:
				m.Value = f.gpmFP32
			default:
				m.NvmlReturn = uint32(nvml.ERROR_NOT_SUPPORTED)
			}
		}
		return nvml.SUCCESS
	}
	return s
}

func TestSamplerSummaries(t *testing.T) {
	tests := []struct {
		name  string
		fakes []*fakeGPU
		ticks int
		want  []result.GPUStats
	}{
		{
			name: "utilization rates",
			fakes: []*fakeGPU{{
				util:    []nvml.Utilization{{Gpu: 90, Memory: 40}, {Gpu: 100, Memory: 50}, {Gpu: 80, Memory: 30}},
				power:   []uint32{300000, 400000, 500000},
				usedMiB: 40211, clock: 1980, temp: 61, reasons: 0x4,
			}},
			ticks: 3,
			want: []result.GPUStats{{
				Index: 0, Name: h200, Samples: 3,
				SMUtilPct: result.Stat{Mean: 90, Max: 100}, MemBWUtilPct: result.Stat{Mean: 40, Max: 50},
				MemUsedMiB: 40211, PowerW: result.Stat{Mean: 400, Max: 500},
				SMClockMHz: &result.Stat{Mean: 1980, Max: 1980}, TemperatureC: &result.Stat{Mean: 61, Max: 61},
				ThrottleReasons: []string{"sw_power_cap"}, UtilSource: SourceUtilization,
			}},
		},
		{
			// The first GPM reading after Reset has no interval yet, so the
			// utilization figures come from readings 2 and 3 only.
			name: "gpm on two devices, old driver throttle call",
			fakes: []*fakeGPU{
				{gpm: true, gpmSM: []float64{0, 30, 32}, gpmBW: []float64{0, 86, 90}, gpmFP32: 4,
					util: []nvml.Utilization{{Gpu: 100, Memory: 100}}, power: []uint32{412000},
					usedMiB: 1000, clock: 1500, temp: 50, reasons: 0x1 | 0x40, noEvents: true},
				{gpm: true, gpmSM: []float64{0, 95, 85}, gpmBW: []float64{0, 20, 20}, gpmTensor: 71, gpmFP32: 12,
					util: []nvml.Utilization{{Gpu: 7, Memory: 7}}, power: []uint32{650000},
					usedMiB: 2000, clock: 1700, temp: 70},
			},
			ticks: 3,
			want: []result.GPUStats{
				{Index: 0, Name: h200, Samples: 3,
					SMUtilPct: result.Stat{Mean: 31, Max: 32}, MemBWUtilPct: result.Stat{Mean: 88, Max: 90},
					MemUsedMiB: 1000, PowerW: result.Stat{Mean: 412, Max: 412},
					SMClockMHz: &result.Stat{Mean: 1500, Max: 1500}, TemperatureC: &result.Stat{Mean: 50, Max: 50},
					PipeUtilPct:     &result.Stat{Mean: 4, Max: 4},
					ThrottleReasons: []string{"gpu_idle", "hw_thermal_slowdown"}, UtilSource: SourceGPM},
				{Index: 1, Name: h200, Samples: 3,
					SMUtilPct: result.Stat{Mean: 90, Max: 95}, MemBWUtilPct: result.Stat{Mean: 20, Max: 20},
					MemUsedMiB: 2000, PowerW: result.Stat{Mean: 650, Max: 650},
					SMClockMHz: &result.Stat{Mean: 1700, Max: 1700}, TemperatureC: &result.Stat{Mean: 70, Max: 70},
					PipeUtilPct: &result.Stat{Mean: 71, Max: 71}, UtilSource: SourceGPM},
			},
		},
		{
			// A figure the board does not report is named, not zero-filled.
			name: "power not supported",
			fakes: []*fakeGPU{{
				util: []nvml.Utilization{{Gpu: 10, Memory: 5}}, noPower: true, usedMiB: 10, clock: 345, temp: 30,
			}},
			ticks: 2,
			want: []result.GPUStats{{
				Index: 0, Name: h200, Samples: 2,
				SMUtilPct: result.Stat{Mean: 10, Max: 10}, MemBWUtilPct: result.Stat{Mean: 5, Max: 5},
				MemUsedMiB: 10, SMClockMHz: &result.Stat{Mean: 345, Max: 345}, TemperatureC: &result.Stat{Mean: 30, Max: 30},
				UtilSource: SourceUtilization, Unavailable: []string{"power_w"},
			}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := NewSampler(newServer(t, tt.fakes...))
			if err != nil {
				t.Fatalf("NewSampler: %v", err)
			}
			defer s.Close()
			s.Reset()
			var w Window
			for range tt.ticks {
				w.Add(s.Sample())
			}
			got := w.Stats(s.Devices())
			if d := cmp.Diff(tt.want, got, cmpopts.EquateApprox(0, 0.01)); d != "" {
				t.Errorf("Stats (-want +got):\n%s", d)
			}
		})
	}
}

func TestSamplerGPMFailureFallsBack(t *testing.T) {
	f := &fakeGPU{gpm: true, gpmSM: []float64{50}, gpmBW: []float64{50},
		util: []nvml.Utilization{{Gpu: 77, Memory: 33}}, power: []uint32{1000}}
	srv := newServer(t, f)
	srv.GpmMetricsGetFunc = func(*nvml.GpmMetricsGetType) nvml.Return { return nvml.ERROR_NOT_SUPPORTED }
	s, err := NewSampler(srv)
	if err != nil {
		t.Fatalf("NewSampler: %v", err)
	}
	defer s.Close()
	// The first reading only opens a GPM interval; the second finds GPM
	// failing and falls back, and GPM stays off after that.
	if x := s.Sample()[0]; !math.IsNaN(x.SMUtilPct) {
		t.Errorf("first sample SM = %v, want NaN (no GPM interval yet)", x.SMUtilPct)
	}
	for k := range 3 {
		x := s.Sample()[0]
		if x.Source != SourceUtilization || x.SMUtilPct != 77 || x.MemBWUtilPct != 33 {
			t.Errorf("sample %d = %+v, want utilization rates 77/33", k, x)
		}
	}
}

func TestNewSamplerNoGPU(t *testing.T) {
	tests := []struct {
		name string
		lib  nvml.Interface
	}{
		{"library not found", &mock.Interface{InitFunc: func() nvml.Return { return nvml.ERROR_LIBRARY_NOT_FOUND }}},
		{"driver not loaded", &mock.Interface{InitFunc: func() nvml.Return { return nvml.ERROR_DRIVER_NOT_LOADED }}},
		{"no device", newMachine()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := NewSampler(tt.lib)
			if !errors.Is(err, ErrNoGPU) {
				t.Fatalf("NewSampler = %v, %v; want an error wrapping ErrNoGPU", s, err)
			}
		})
	}
}

// TestOpenRealLibrary checks the real library path: on a machine without
// libnvidia-ml it must say "no GPU"; with one it must find a device.
func TestOpenRealLibrary(t *testing.T) {
	s, err := Open()
	if err != nil {
		if !errors.Is(err, ErrNoGPU) || !strings.HasPrefix(err.Error(), "no GPU: ") {
			t.Fatalf("Open = %v, want a \"no GPU: ...\" error wrapping ErrNoGPU", err)
		}
		return
	}
	defer s.Close()
	if len(s.Devices()) == 0 {
		t.Fatal("Open succeeded with no device")
	}
	for _, x := range s.Sample() {
		if math.IsNaN(x.MemUsedMiB) {
			t.Errorf("GPU %d: memory used unknown", x.Index)
		}
	}
}

func TestEnvironment(t *testing.T) {
	srv := newServer(t, &fakeGPU{}, &fakeGPU{})
	migDev, _ := srv.DeviceGetHandleByIndex(1)
	migDev.(*mock.Device).GetMigModeFunc = func() (int, int, nvml.Return) {
		return nvml.DEVICE_MIG_ENABLE, nvml.DEVICE_MIG_ENABLE, nvml.SUCCESS
	}
	s, err := NewSampler(srv)
	if err != nil {
		t.Fatalf("NewSampler: %v", err)
	}
	defer s.Close()
	got, err := s.Environment()
	if err != nil {
		t.Fatalf("Environment: %v", err)
	}
	want := []result.GPU{
		{Name: h200, Driver: "550.54.15", CUDA: "12.4", MemoryMiB: 144384, MIG: "disabled",
			UUID: "GPU-00000000-0000-0000-0000-000000000000"},
		{Name: h200, Driver: "550.54.15", CUDA: "12.4", MemoryMiB: 144384, MIG: "enabled",
			UUID: "GPU-00000000-0000-0000-0000-000000000001"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Environment (-want +got):\n%s", d)
	}
}

// BenchmarkSample measures one sample of one GPU against the mock: the
// sampler's own work, not the driver's.
func BenchmarkSample(b *testing.B) {
	t := &testing.T{}
	s, err := NewSampler(newServer(t, &fakeGPU{gpm: true, gpmSM: []float64{50}, gpmBW: []float64{50},
		util: []nvml.Utilization{{}}, power: []uint32{1}}))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var w Window
	for b.Loop() {
		w.Add(s.Sample())
	}
}
