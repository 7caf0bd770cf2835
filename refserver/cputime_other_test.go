//go:build !unix

package refserver

import "time"

// processCPU is not available here: tests that need it skip.
func processCPU() (time.Duration, bool) { return 0, false }
