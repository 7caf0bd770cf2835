package harness

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/perfgate/perfgate/internal/procfs"
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

// HostSampler wraps a TrialObserver (nil allowed) and measures, per trial,
// how busy the host was apart from perfgate's own process and the
// target's process group (see result.HostLoad). It reads /proc/stat for
// the host's busy and steal time and /proc/[pid]/stat for the own tree, at
// the window's open and close. Where /proc is missing it measures nothing.
type HostSampler struct {
	inner TrialObserver
	pgid  int
	peers []int
	tree  int
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

// WithTargetTree counts process pid and its descendants as the target's,
// not other work: a service on this host that perfgate did not start (a
// url: on loopback, whose listener the suite found). It returns h.
func (h *HostSampler) WithTargetTree(pid int) *HostSampler {
	h.tree = pid
	return h
}

// WithPeerGroup counts process group pgid as perfgate's own work, not
// other work: a second target perfgate started and loads at the same
// time (the concurrent A/B design's other side), whose CPU time is the
// design's, not a neighbour's. It returns h.
func (h *HostSampler) WithPeerGroup(pgid int) *HostSampler {
	if pgid > 0 {
		h.peers = append(h.peers, pgid)
	}
	return h
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
	l := &result.HostLoad{OtherCPUCores: max(other, 0) / procfs.ClockTicks / wall}
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

// snap reads the host's counters and the own tree's CPU time, through
// package procfs.
func (h *HostSampler) snap() hostSnap {
	s := hostSnap{at: time.Now()}
	ct, ok := procfs.ReadCPUTimes(h.proc)
	if !ok {
		return s
	}
	s.busy, s.steal, s.total, s.ok = ct.Busy, ct.Steal, ct.Total, true
	self := os.Getpid()
	s.own = procTicks(h.proc, self)
	if h.pgid > 0 {
		procs, _ := procfs.Group(h.proc, h.pgid) // what could be read
		for _, p := range procs {
			if p.PID != self {
				s.own += float64(p.Ticks)
			}
		}
	}
	for _, g := range h.peers {
		if g == h.pgid {
			continue
		}
		procs, _ := procfs.Group(h.proc, g) // what could be read
		for _, p := range procs {
			if p.PID != self {
				s.own += float64(p.Ticks)
			}
		}
	}
	if h.tree > 0 {
		procs, _ := procfs.Tree(h.proc, h.tree) // what could be read
		for _, p := range procs {
			if p.PID != self && (h.pgid <= 0 || p.PGrp != h.pgid) {
				s.own += float64(p.Ticks)
			}
		}
	}
	return s
}

// procTicks is a process's utime + stime under root (/proc), 0 when
// unreadable.
func procTicks(root string, pid int) float64 {
	st, err := procfs.ReadStat(root, pid)
	if err != nil {
		return 0
	}
	return float64(st.Ticks)
}
