package telemetry

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// clockTicks is USER_HZ, the unit of utime and stime in /proc/PID/stat. It
// is 100 on every Linux architecture Go supports (the kernel fixes it for
// user space whatever CONFIG_HZ is).
const clockTicks = 100

// procStat is what perfgate reads from one /proc/PID/stat line.
type procStat struct {
	pgrp      int
	ticks     uint64 // utime + stime
	startTime uint64 // start time after boot, in clock ticks: tells PID reuse apart
}

// parseStat parses a /proc/PID/stat line. The command name (field 2) is in
// parentheses and may itself hold spaces and parentheses, so the fields are
// counted from the last ')'.
func parseStat(line []byte) (procStat, error) {
	end := bytes.LastIndexByte(line, ')')
	if end < 0 {
		return procStat{}, errors.New("no ')' after the command name")
	}
	f := bytes.Fields(line[end+1:])
	// f[0] is field 3 (state); field n is f[n-3].
	const pgrp, utime, stime, start = 5 - 3, 14 - 3, 15 - 3, 22 - 3
	if len(f) <= start {
		return procStat{}, fmt.Errorf("%d fields after the command name, want at least %d", len(f), start+1)
	}
	var s procStat
	var err error
	num := func(i int) uint64 {
		v, e := strconv.ParseUint(string(f[i]), 10, 64)
		if e != nil && err == nil {
			err = fmt.Errorf("field %d: %w", i+3, e)
		}
		return v
	}
	g, e := strconv.Atoi(string(f[pgrp]))
	if e != nil {
		return procStat{}, fmt.Errorf("field 5 (pgrp): %w", e)
	}
	s.pgrp = g
	s.ticks = num(utime) + num(stime)
	s.startTime = num(start)
	return s, err
}

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

// readGroup reads every process of process group pgid under root (/proc).
// Processes that exit while it reads are skipped. RSS is the sum of each
// process's resident set (statm × page size); pages the processes share
// are counted once per process.
func readGroup(root string, pgid int) (groupSnapshot, error) {
	snap := groupSnapshot{at: time.Now(), procs: make(map[procKey]uint64)}
	ents, err := os.ReadDir(root)
	if err != nil {
		return snap, fmt.Errorf("reading %s: %w", root, err)
	}
	page := int64(os.Getpagesize())
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid <= 0 {
			continue
		}
		dir := filepath.Join(root, e.Name())
		b, err := os.ReadFile(filepath.Join(dir, "stat"))
		if err != nil {
			continue // exited, or not ours to read
		}
		st, err := parseStat(b)
		if err != nil {
			return snap, fmt.Errorf("parsing %s/stat: %w", dir, err)
		}
		if st.pgrp != pgid {
			continue
		}
		snap.procs[procKey{pid, st.startTime}] = st.ticks
		if m, err := os.ReadFile(filepath.Join(dir, "statm")); err == nil {
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
	return float64(ticks) / clockTicks / wall
}
