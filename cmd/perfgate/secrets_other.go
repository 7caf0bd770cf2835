//go:build !linux

package main

// closeProcess does nothing outside Linux: the secrets are gone from
// perfgate's environment (os.Unsetenv), so no child inherits them, but
// macOS still shows a process's initial environment to its own user
// (ps -E, sysctl KERN_PROCARGS2); see docs/hardening.md.
func closeProcess([]string) error { return nil }
