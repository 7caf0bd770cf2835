//go:build !unix

package harness

import "time"

// cpuTime is unknown on this platform.
func cpuTime() time.Duration { return 0 }
