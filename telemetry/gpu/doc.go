// Package gpu samples NVIDIA GPUs through NVML (github.com/NVIDIA/go-nvml)
// and summarizes the samples of a measurement window into
// result.GPUStats.
//
// NVML needs cgo and the driver's libnvidia-ml.so.1 at run time. The NVML
// code lives in nvml.go (linux && cgo); nvml_stub.go (!linux || !cgo)
// gives the same API with every constructor returning ErrNoGPU, so perfgate
// builds everywhere. When the library cannot be loaded or reports no
// device, Open returns an error wrapping ErrNoGPU and the caller records
// "no GPU" once: never zeros.
//
// # Which utilization figures
//
// On GPUs that support GPU Performance Monitoring (GPM: Hopper and later)
// the sampler reads, between two consecutive GPM samples:
//
//   - SM utilization: GPM_METRIC_SM_UTIL, the percentage of SMs that were
//     busy (the counterpart of DCGM's SM_ACTIVE),
//   - SM occupancy: GPM_METRIC_SM_OCCUPANCY, resident warps over the
//     maximum, kept as extra evidence,
//   - memory-bandwidth utilization: GPM_METRIC_DRAM_BW_UTIL, the DRAM
//     bandwidth used as a percentage of the peak,
//   - pipe utilization: the busiest of the tensor, FP64, FP32, FP16 and
//     integer pipes (GPM_METRIC_ANY_TENSOR_UTIL, ..._FP64_UTIL, ...). A
//     kernel that only streams memory keeps its SMs "active" (high SM
//     utilization) while its pipes idle; this figure tells it from one that
//     computes.
//
// Elsewhere (or when GPM fails on a device) it falls back to
// nvmlDeviceGetUtilizationRates: "gpu" is the percentage of time one or
// more kernels ran and "memory" the percentage of time device memory was
// read or written. Both over-state how busy the chip is: a single small
// kernel running all the time reads as 100%. result.GPUStats.UtilSource
// says which of the two a figure came from ("gpm" or "utilization-rates").
//
// The other per-sample figures are memory used (nvmlDeviceGetMemoryInfo),
// board power (nvmlDeviceGetPowerUsage), SM clock (nvmlDeviceGetClockInfo
// with NVML_CLOCK_SM), GPU temperature and the current clock event
// (throttle) reasons, reported by name. A figure the device does not
// support is left out of the summary and named in Unavailable.
package gpu
