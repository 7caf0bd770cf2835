// Package procfs reads the few Linux /proc files perfgate measures CPU time
// with: a process's stat line (its process group, utime + stime and start
// time) and the host's aggregate CPU times in /proc/stat. The harness's
// host-load sampler and the telemetry collector both read through it, so
// the parsing and the clock-tick unit live in one place.
//
// Every function takes the /proc root, so that tests can give a captured
// tree; off Linux the files are absent and the readers return errors.
package procfs

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ClockTicks is USER_HZ, the unit of the CPU times in /proc/stat and
// /proc/PID/stat. It is 100 on every Linux architecture Go supports (the
// kernel fixes it for user space whatever CONFIG_HZ is).
const ClockTicks = 100

// Stat is what perfgate reads from one /proc/PID/stat line.
type Stat struct {
	// PPID is the parent's process ID (field 4).
	PPID int
	// PGrp is the process group (field 5).
	PGrp int
	// Ticks is utime + stime (fields 14 and 15), in ClockTicks.
	Ticks uint64
	// StartTime is the start time after boot (field 22), in ClockTicks:
	// it tells a reused PID apart.
	StartTime uint64
}

// ParseStat parses a /proc/PID/stat line. The command name (field 2) is in
// parentheses and may itself hold spaces and parentheses, so the fields are
// counted from the last ')'.
func ParseStat(line []byte) (Stat, error) {
	end := bytes.LastIndexByte(line, ')')
	if end < 0 {
		return Stat{}, errors.New("no ')' after the command name")
	}
	f := bytes.Fields(line[end+1:])
	// f[0] is field 3 (state); field n is f[n-3].
	const ppid, pgrp, utime, stime, start = 4 - 3, 5 - 3, 14 - 3, 15 - 3, 22 - 3
	if len(f) <= start {
		return Stat{}, fmt.Errorf("%d fields after the command name, want at least %d", len(f), start+1)
	}
	var s Stat
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
		return Stat{}, fmt.Errorf("field 5 (pgrp): %w", e)
	}
	s.PGrp = g
	if s.PPID, e = strconv.Atoi(string(f[ppid])); e != nil {
		return Stat{}, fmt.Errorf("field 4 (ppid): %w", e)
	}
	s.Ticks = num(utime) + num(stime)
	s.StartTime = num(start)
	return s, err
}

// ReadStat reads and parses root/PID/stat.
func ReadStat(root string, pid int) (Stat, error) {
	path := filepath.Join(root, strconv.Itoa(pid), "stat")
	b, err := os.ReadFile(path)
	if err != nil {
		return Stat{}, err
	}
	s, err := ParseStat(b)
	if err != nil {
		return Stat{}, fmt.Errorf("parsing %s: %w", path, err)
	}
	return s, nil
}

// Proc is one process of a group.
type Proc struct {
	PID int
	Stat
}

// Group returns the processes of process group pgid under root (/proc).
// Processes that exit while it reads, or that are not ours to read, are
// skipped; a stat line that does not parse is an error.
func Group(root string, pgid int) ([]Proc, error) {
	all, err := readAll(root)
	var out []Proc
	for _, p := range all {
		if p.PGrp == pgid {
			out = append(out, p)
		}
	}
	return out, err
}

// readAll reads every process's stat line under root, skipping the
// processes that exit while it reads or are not ours to read; it stops at
// a stat line that does not parse, returning what it read before.
func readAll(root string) ([]Proc, error) {
	ents, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", root, err)
	}
	var out []Proc
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid <= 0 {
			continue
		}
		s, err := ReadStat(root, pid)
		if err != nil {
			if _, unread := errors.AsType[*os.PathError](err); unread {
				continue // exited, or not ours to read
			}
			return out, err
		}
		out = append(out, Proc{PID: pid, Stat: s})
	}
	return out, nil
}

// CPUTimes are the host's aggregate CPU times from /proc/stat's "cpu"
// line, in ClockTicks.
type CPUTimes struct {
	// Busy is every state but idle and iowait.
	Busy float64
	// Steal is the time the hypervisor gave to other guests.
	Steal float64
	// Total is the sum of the eight states read.
	Total float64
}

// ParseCPUTimes reads the aggregate "cpu" line of /proc/stat (its first
// line): user nice system idle iowait irq softirq steal (guest time is
// already in user). ok is false when the line is not there.
func ParseCPUTimes(b []byte) (t CPUTimes, ok bool) {
	line, _, _ := bytes.Cut(b, []byte("\n"))
	f := strings.Fields(string(line))
	if len(f) < 9 || f[0] != "cpu" {
		return CPUTimes{}, false
	}
	var v [8]float64
	for i := range v {
		x, err := strconv.ParseFloat(f[i+1], 64)
		if err != nil {
			return CPUTimes{}, false
		}
		v[i] = x
	}
	for _, x := range v {
		t.Total += x
	}
	t.Busy, t.Steal = t.Total-v[3]-v[4], v[7]
	return t, true
}

// ReadCPUTimes reads root/stat (the host's CPU times).
func ReadCPUTimes(root string) (CPUTimes, bool) {
	b, err := os.ReadFile(filepath.Join(root, "stat"))
	if err != nil {
		return CPUTimes{}, false
	}
	return ParseCPUTimes(b)
}
