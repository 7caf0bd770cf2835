//go:build !linux

package harness

// readRunQueue is unavailable off Linux: the run-queue wait is then not
// measured and not judged.
func readRunQueue() runQueueSnapshot { return nil }
