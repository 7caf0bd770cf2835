//go:build linux

package baselines

import (
	"errors"

	"golang.org/x/sys/unix"
)

// swapDirs exchanges folders a and b in one step (renameat2
// RENAME_EXCHANGE), falling back to two renames where the file system
// cannot exchange.
func swapDirs(a, b string) error {
	err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) {
		return swapByRenames(a, b)
	}
	return err
}
