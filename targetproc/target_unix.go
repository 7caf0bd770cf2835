//go:build unix

package targetproc

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
)

// Signals Stop sends to a target's process group.
const (
	sigTerm = syscall.SIGTERM
	sigKill = syscall.SIGKILL
)

// sysProcAttr puts a target in a new process group of its own, whose id is
// its pid, so that signals to the group reach everything it starts.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// signalGroup sends sig to every process of group pgid; a group already
// gone is not an error.
func signalGroup(pgid int, sig syscall.Signal) error {
	if pgid <= 1 {
		// kill(-1) and kill(0) would reach far more than a target.
		return fmt.Errorf("refusing to signal process group %d", pgid)
	}
	err := syscall.Kill(-pgid, sig)
	if err == nil || errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return fmt.Errorf("sending %v to process group %d: %w", sig, pgid, err)
}

// groupAlive reports whether any live process of group pgid is left.
// Zombies do not count: an orphan that died is re-parented to pid 1, which
// reaps it, or in some containers never does; either way it runs no more.
func groupAlive(pgid int) bool {
	if pgid <= 1 {
		return false
	}
	if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	if runtime.GOOS != "linux" {
		return true // without /proc, kill(2) is all we know
	}
	live, ok := liveGroupMembers(pgid)
	return !ok || len(live) > 0
}

// liveGroupMembers lists the pids of the processes of group pgid that are
// not zombies, from /proc; ok is false when /proc cannot be read.
func liveGroupMembers(pgid int) (pids []int, ok bool) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, false
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // exited meanwhile
		}
		state, pgrp, ok := parseProcStat(string(b))
		if ok && pgrp == pgid && state != 'Z' && state != 'X' {
			pids = append(pids, pid)
		}
	}
	return pids, true
}

// parseProcStat reads the state and process group from the text of
// /proc/PID/stat: "pid (comm) state ppid pgrp ...". The command name may
// hold spaces and parentheses, so fields are counted after the last ')'.
func parseProcStat(s string) (state byte, pgrp int, ok bool) {
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 3 || len(f[0]) != 1 {
		return 0, 0, false
	}
	pgrp, err := strconv.Atoi(f[2])
	if err != nil {
		return 0, 0, false
	}
	return f[0][0], pgrp, true
}

// describeExit says how a process ended: "exited with status 1" or "was
// killed by signal killed".
func describeExit(ps *os.ProcessState) string {
	if ps == nil {
		return "ended"
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return "was killed by signal " + ws.Signal().String()
	}
	return "exited with status " + strconv.Itoa(ps.ExitCode())
}
