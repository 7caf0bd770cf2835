// Package cpuset parses and prints Linux CPU lists ("0", "2-3", "0,4-7"),
// the format of taskset -c, cpuset.cpus and /proc/PID/status's
// Cpus_allowed_list. It is a leaf: package config checks perfgate.yaml's
// CPU lists with it, and the harness pins processes to the sets.
package cpuset

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// CPU isolation (perfgate.yaml's generator_cpus and targets.NAME.cpus).
//
// On a runner with cores to spare, the load generator and the target
// compete for the same CPUs unless told otherwise: the scheduler moves
// both around, and a request's latency then holds some of the generator's
// own work. Pinning each to a disjoint set of CPUs removes that
// interference, which is part of the run-to-run noise the gate must see
// through.

// Set is a set of CPU numbers, sorted and without duplicates.
type Set []int

// Parse parses a Linux CPU list ("0", "2-3", "0,4-7"), the format
// of taskset -c, cpuset.cpus and /proc/PID/status's Cpus_allowed_list.
func Parse(s string) (Set, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("cpu list %q is empty: write CPU numbers such as \"1\", \"2-3\" or \"0,4-7\"", s)
	}
	var set Set
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(strings.TrimSpace(lo))
		b := a
		if err == nil && isRange {
			b, err = strconv.Atoi(strings.TrimSpace(hi))
		}
		if err != nil || a < 0 || b < a || b >= Max {
			return nil, fmt.Errorf("cpu list %q: %q is not a CPU number or range (want numbers from 0 to %d such as \"1\", \"2-3\" or \"0,4-7\")", s, part, Max-1)
		}
		for c := a; c <= b; c++ {
			set = append(set, c)
		}
	}
	slices.Sort(set)
	return slices.Compact(set), nil
}

// Max bounds CPU numbers (they run from 0 to Max-1) (the kernel's CPU_SETSIZE of 1024, as in
// golang.org/x/sys/unix.Set).
const Max = 1024

// String writes s as a CPU list with ranges: "0,2-3".
func (s Set) String() string {
	var b strings.Builder
	for i := 0; i < len(s); {
		j := i
		for j+1 < len(s) && s[j+1] == s[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(s[i]))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(s[j]))
		}
		i = j + 1
	}
	return b.String()
}

// Overlap returns the CPUs s and o share.
func (s Set) Overlap(o Set) Set {
	var out Set
	for _, c := range s {
		if slices.Contains(o, c) {
			out = append(out, c)
		}
	}
	return out
}

// Missing returns the CPUs of s that are not in avail.
func (s Set) Missing(avail Set) Set {
	var out Set
	for _, c := range s {
		if !slices.Contains(avail, c) {
			out = append(out, c)
		}
	}
	return out
}
