package telemetry

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/perfgate/perfgate/internal/procfs"
)

// groupSnapshot is one reading of a process group.
type groupSnapshot struct {
	at    time.Time
	procs map[procKey]uint64 // CPU ticks per process
	rss   int64              // resident bytes, summed over the group
}

// procKey names one process: a PID with its start time, so a reused PID is
// a different process.
type procKey struct {
	pid   int
	start uint64
}

// readGroup reads every process of process group pgid under root (/proc),
// through package procfs.
// Processes that exit while it reads are skipped. RSS is the sum of each
// process's resident set (statm × page size); pages the processes share
// are counted once per process.
func readGroup(root string, pgid int) (groupSnapshot, error) {
	snap := groupSnapshot{at: time.Now(), procs: make(map[procKey]uint64)}
	procs, err := procfs.Group(root, pgid)
	if err != nil {
		return snap, err
	}
	page := int64(os.Getpagesize())
	for _, p := range procs {
		snap.procs[procKey{p.PID, p.StartTime}] = p.Ticks
		if m, err := os.ReadFile(filepath.Join(root, strconv.Itoa(p.PID), "statm")); err == nil {
			if f := bytes.Fields(m); len(f) >= 2 {
				if pages, err := strconv.ParseInt(string(f[1]), 10, 64); err == nil {
					snap.rss += pages * page
				}
			}
		}
	}
	return snap, nil
}

// coresBetween is the group's CPU use between two snapshots, in cores:
// Σ Δ(utime+stime) / USER_HZ / wall seconds. A process that started inside
// the window counts all its ticks; one that exited inside it is missed
// (its time goes to its parent's cutime only when reaped, and is not
// counted), so a group that churns short-lived processes reads low.
func coresBetween(a, b groupSnapshot) float64 {
	wall := b.at.Sub(a.at).Seconds()
	if wall <= 0 {
		return 0
	}
	var ticks uint64
	for k, t := range b.procs {
		before := a.procs[k]
		if t > before {
			ticks += t - before
		}
	}
	return float64(ticks) / procfs.ClockTicks / wall
}
