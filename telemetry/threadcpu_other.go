//go:build !linux

package telemetry

import "time"

// processStart anchors threadCPU's clock.
var processStart = time.Now()

// threadCPU has no per-thread CPU clock outside Linux; it returns wall time,
// so differences bound the sampler's cost from above. (NVML sampling runs
// on Linux only, so this matters only if that changes.)
func threadCPU() time.Duration { return time.Since(processStart) }
