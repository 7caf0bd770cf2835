//go:build linux

package harness

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/procfs"
	"github.com/perfgate/perfgate/result"
)

// A deliberate CPU hog outside perfgate's tree is counted as other load;
// the same hog given as the target's process group is not. The check is
// on CPU time, so it holds on a loaded machine: whatever the hog got, the
// sampler must attribute it. Given as the target's tree (a url: service
// found by its listening socket), its worker child is the target's too.
func TestHostSamplerSeesHog(t *testing.T) {
	if _, err := os.Stat("/proc/stat"); err != nil {
		t.Skip("no /proc: host load is not measured here")
	}
	// The hog is a child of the group leader, as a forked worker is.
	hog := exec.Command("sh", "-c", "sh -c 'while :; do :; done' & wait")
	hog.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := hog.Start(); err != nil {
		t.Skipf("starting a CPU hog: %v", err)
	}
	t.Cleanup(func() { syscall.Kill(-hog.Process.Pid, syscall.SIGKILL); hog.Wait() }) // the group: the worker too
	pid := hog.Process.Pid

	outside := NewHostSampler(nil, 0)
	asTarget := NewHostSampler(nil, pid) // the hog's parent leads its group
	asTree := NewHostSampler(nil, 0).WithTargetTree(pid)
	asPeer := NewHostSampler(nil, 0).WithPeerGroup(pid) // the concurrent A/B design's other side
	treeTicks := func() float64 {
		procs, _ := procfs.Tree("/proc", pid)
		var n float64
		for _, p := range procs {
			n += float64(p.Ticks)
		}
		return n
	}
	time.Sleep(100 * time.Millisecond) // the worker child started
	before := treeTicks()
	outside.BeginTrial(0)
	asTarget.BeginTrial(0)
	asTree.BeginTrial(0)
	asPeer.BeginTrial(0)
	t0 := time.Now()
	time.Sleep(1500 * time.Millisecond)
	outside.EndTrial(0)
	asTarget.EndTrial(0)
	asTree.EndTrial(0)
	asPeer.EndTrial(0)
	wall := time.Since(t0).Seconds()
	hogTicks := treeTicks() - before
	a, b, c, p := outside.Load(0), asTarget.Load(0), asTree.Load(0), asPeer.Load(0)
	if a == nil || b == nil || c == nil || p == nil {
		t.Fatalf("no load measured: outside %v, as target %v, as tree %v, as peer %v", a, b, c, p)
	}
	if hogTicks < 5 {
		t.Skipf("the hog got %v ticks in %.1fs: too few to tell apart", hogTicks, wall)
	}
	otherA := a.OtherCPUCores * wall * procfs.ClockTicks
	otherB := b.OtherCPUCores * wall * procfs.ClockTicks
	// Both samplers read the host within microseconds of each other; the
	// slack covers tick rounding and other processes between the reads.
	slack := 0.25*hogTicks + 10
	if otherA < hogTicks-slack {
		t.Errorf("outside perfgate: other load %.0f ticks, but the hog alone used %.0f", otherA, hogTicks)
	}
	if d := otherA - otherB; d < hogTicks-slack || d > hogTicks+slack {
		t.Errorf("as the target's group: other load fell by %.0f ticks, want the hog's %.0f ± %.0f", d, hogTicks, slack)
	}
	otherC := c.OtherCPUCores * wall * procfs.ClockTicks
	if d := otherA - otherC; d < hogTicks-slack || d > hogTicks+slack {
		t.Errorf("as the target's tree: other load fell by %.0f ticks, want the hog's %.0f ± %.0f", d, hogTicks, slack)
	}
	otherP := p.OtherCPUCores * wall * procfs.ClockTicks
	if d := otherA - otherP; d < hogTicks-slack || d > hogTicks+slack {
		t.Errorf("as a peer target's group: other load fell by %.0f ticks, want the hog's %.0f ± %.0f", d, hogTicks, slack)
	}
	if hogTicks/procfs.ClockTicks/wall > 0.6 && !a.Busy {
		t.Errorf("a hog using %.2f cores did not flag the trial busy: %+v", hogTicks/procfs.ClockTicks/wall, a)
	}
}

func TestJudgeHost(t *testing.T) {
	tests := []struct {
		name  string
		load  result.HostLoad
		cores int
		busy  bool
	}{
		{"quiet", result.HostLoad{OtherCPUCores: 0.1}, 2, false},
		{"half a core on 2", result.HostLoad{OtherCPUCores: 0.6}, 2, true},
		// On 16 cores the threshold is 25% of them: 4 cores.
		{"three cores on 16", result.HostLoad{OtherCPUCores: 3}, 16, false},
		{"five cores on 16", result.HostLoad{OtherCPUCores: 5}, 16, true},
		{"steal", result.HostLoad{OtherCPUCores: 0, StealPct: 8}, 2, true},
	}
	for _, tt := range tests {
		l := tt.load
		judgeHost(&l, tt.cores)
		if l.Busy != tt.busy || (l.Busy && l.Why == "") {
			t.Errorf("%s: judgeHost(%+v, %d) = busy %v (%q), want %v", tt.name, tt.load, tt.cores, l.Busy, l.Why, tt.busy)
		}
	}
}
