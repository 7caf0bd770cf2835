//go:build !linux

package baselines

// swapDirs exchanges folders a and b with two renames.
func swapDirs(a, b string) error { return swapByRenames(a, b) }
