package main

import (
	"errors"
	"syscall"

	"github.com/perfgate/perfgate/suite"
)

// suiteErr maps an error suite.Run returned to its exit code. Before a
// scenario runs, such an error is the configuration's (exit 2); once the
// run has happened, or when the disk is full, read-only or failing, it is
// the run's output that could not be written (exit 3), and the scenarios'
// own errors, which name each result file not written, are reported with
// it (issue 28: a full disk exited 2 and never named the lost result).
func suiteErr(err error, outs []suite.Outcome) error {
	if len(outs) == 0 && !ioFailure(err) {
		return withCode(exitUsage, err)
	}
	errs := []error{err}
	for _, o := range outs {
		if o.Err != nil {
			errs = append(errs, o.Err)
		}
	}
	return withCode(exitRunFailed, errors.Join(errs...))
}

// ioFailure reports whether err is the storage's failure: no space, no
// quota, a read-only file system, an I/O error.
func ioFailure(err error) bool {
	for _, e := range []error{syscall.ENOSPC, syscall.EDQUOT, syscall.EROFS, syscall.EIO} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
