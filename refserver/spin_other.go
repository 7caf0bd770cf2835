//go:build !unix

package refserver

import "time"

// threadCPU has no thread clock here: spinRate falls back to wall time.
func threadCPU() (time.Duration, bool) { return 0, false }
