package harness

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/perfgate/perfgate/result"
)

// Host contention thresholds. A trial is flagged busy when processes other
// than perfgate and the targets it started used more than
// max(BusyOtherCores, BusyOtherShare × host cores) cores on average over
// the window, or when the hypervisor stole more than BusyStealPct percent
// of the host's CPU time. On a 2-core runner that is half a core: enough
// to move a CPU-bound target's latency by several percent.
const (
	BusyOtherCores = 0.5
	BusyOtherShare = 0.25
	BusyStealPct   = 5.0
)

// clockTicks is USER_HZ, the unit of /proc/stat and /proc/[pid]/stat CPU
// times; 100 on every Linux architecture Go supports.
const clockTicks = 100

// HostSampler wraps a TrialObserver (nil allowed) and measures, per trial,
// how busy the host was apart from perfgate's own process and the
// target's process group (see result.HostLoad). It reads /proc/stat for
// the host's busy and steal time and /proc/[pid]/stat for the own tree, at
// the window's open and close. Where /proc is missing it measures nothing.
type HostSampler struct {
	inner TrialObserver
	pgid  int
	cores int
	proc  string

	mu    sync.Mutex
	start map[int]hostSnap
	loads map[int]*result.HostLoad
}

var _ TrialObserver = (*HostSampler)(nil)

// NewHostSampler returns a sampler that also calls inner; pgid is the
// target's process group (0 when perfgate did not start it).
func NewHostSampler(inner TrialObserver, pgid int) *HostSampler {
	return &HostSampler{inner: inner, pgid: pgid, cores: runtime.NumCPU(), proc: "/proc",
		start: map[int]hostSnap{}, loads: map[int]*result.HostLoad{}}
}

// hostSnap is one reading: the host's busy and steal ticks and total
// ticks, and the own tree's ticks.
type hostSnap struct {
	at                 time.Time
	busy, steal, total float64
	own                float64
	ok                 bool
}

// BeginTrial takes the window's first reading.
func (h *HostSampler) BeginTrial(i int) {
	if h.inner != nil {
		h.inner.BeginTrial(i)
	}
	s := h.snap()
	h.mu.Lock()
	h.start[i] = s
	h.mu.Unlock()
}

// EndTrial takes the closing reading and stores the trial's load.
func (h *HostSampler) EndTrial(i int) *result.Telemetry {
	var tel *result.Telemetry
	if h.inner != nil {
		tel = h.inner.EndTrial(i)
	}
	end := h.snap()
	h.mu.Lock()
	defer h.mu.Unlock()
	if b, ok := h.start[i]; ok && b.ok && end.ok {
		h.loads[i] = loadBetween(b, end, h.cores)
	}
	return tel
}

// Load returns trial i's host load, or nil when it was not measured.
func (h *HostSampler) Load(i int) *result.HostLoad {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.loads[i]
}

// loadBetween turns two readings into a HostLoad and judges it.
func loadBetween(a, b hostSnap, cores int) *result.HostLoad {
	wall := b.at.Sub(a.at).Seconds()
	if wall <= 0 {
		return nil
	}
	other := (b.busy - a.busy) - (b.steal - a.steal) - (b.own - a.own)
	l := &result.HostLoad{OtherCPUCores: max(other, 0) / clockTicks / wall}
	if dt := b.total - a.total; dt > 0 {
		l.StealPct = 100 * (b.steal - a.steal) / dt
	}
	judgeHost(l, cores)
	return l
}

// judgeHost flags l when it crosses a contention threshold.
func judgeHost(l *result.HostLoad, cores int) {
	limit := max(BusyOtherCores, BusyOtherShare*float64(cores))
	var why []string
	if l.OtherCPUCores > limit {
		why = append(why, fmt.Sprintf("other processes used %.2f cores (threshold %.2f of %d)", l.OtherCPUCores, limit, cores))
	}
	if l.StealPct > BusyStealPct {
		why = append(why, fmt.Sprintf("steal time %.1f%% (threshold %.0f%%)", l.StealPct, BusyStealPct))
	}
	l.Busy, l.Why = len(why) > 0, strings.Join(why, "; ")
}

// snap reads the host's counters and the own tree's CPU time.
func (h *HostSampler) snap() hostSnap {
	s := hostSnap{at: time.Now()}
	b, err := os.ReadFile(filepath.Join(h.proc, "stat"))
	if err != nil {
		return s
	}
	s.busy, s.steal, s.total, s.ok = parseHostStat(b)
	if !s.ok {
		return s
	}
	self := os.Getpid()
	s.own = procTicks(filepath.Join(h.proc, strconv.Itoa(self), "stat"))
	if h.pgid > 0 {
		ents, _ := os.ReadDir(h.proc)
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || pid == self {
				continue
			}
			if f := procStatFields(filepath.Join(h.proc, e.Name(), "stat")); len(f) > 14 {
				if pg, _ := strconv.Atoi(f[4]); pg == h.pgid {
					s.own += ticksOf(f)
				}
			}
		}
	}
	return s
}

// parseHostStat reads the aggregate "cpu" line of /proc/stat: user nice
// system idle iowait irq softirq steal (guest time is already in user).
// busy is everything but idle and iowait; total is all eight.
func parseHostStat(b []byte) (busy, steal, total float64, ok bool) {
	line, _, _ := bytes.Cut(b, []byte("\n"))
	f := strings.Fields(string(line))
	if len(f) < 9 || f[0] != "cpu" {
		return 0, 0, 0, false
	}
	var v [8]float64
	for i := range v {
		x, err := strconv.ParseFloat(f[i+1], 64)
		if err != nil {
			return 0, 0, 0, false
		}
		v[i] = x
	}
	for _, x := range v {
		total += x
	}
	return total - v[3] - v[4], v[7], total, true
}

// procStatFields returns the fields of /proc/[pid]/stat after the command
// name (which may hold spaces), with the pid and name as fields 0 and 1.
func procStatFields(path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil
	}
	return append([]string{"", ""}, strings.Fields(string(b[i+1:]))...)
}

// ticksOf is utime + stime (fields 14 and 15, 1-based) of parsed fields.
func ticksOf(f []string) float64 {
	u, _ := strconv.ParseFloat(f[13], 64)
	s, _ := strconv.ParseFloat(f[14], 64)
	return u + s
}

// procTicks is a process's utime + stime, 0 when unreadable.
func procTicks(path string) float64 {
	if f := procStatFields(path); len(f) > 14 {
		return ticksOf(f)
	}
	return 0
}
