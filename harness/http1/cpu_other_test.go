//go:build !unix

package http1

import "time"

// processCPU is unknown here; the benchmarks then report no CPU figure.
func processCPU() time.Duration { return 0 }
