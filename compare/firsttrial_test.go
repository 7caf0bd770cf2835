package compare

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/perfgate/perfgate/result"
)

// firstTrialSide is a side's trials in the order measured: procs processes
// of two trials each (ABBA with fresh processes every block), each
// process's P50 its own offset, its first trial slower by slow (a
// fraction), and noise sd (log) on every trial.
func firstTrialSide(r *rand.Rand, procs int, slow, sd float64) []result.Trial {
	var ts []result.Trial
	for p := 1; p <= procs; p++ {
		offset := 0.1 * r.NormFloat64()
		for k := range 2 {
			l := math.Log(10) + offset + sd*r.NormFloat64()
			if k == 0 {
				l += math.Log(1 + slow)
			}
			ts = append(ts, result.Trial{Process: p, Latency: result.Latency{P50: math.Exp(l)}})
		}
	}
	return ts
}

// FirstTrial reads a process's first trial against its later ones within
// each process, so the processes' own offsets cancel: a first trial 23%
// slower (the demo's tiny-llm fp32 server after a 200 ms warm-up, bench/
// decisive-2026-12-07-s12.txt) is found over six processes, and a steady
// one is not, over many seeds.
func TestFirstTrial(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 44))
	found, falseAlarms := 0, 0
	const runs = 400
	for range runs {
		slow, ok := FirstTrial(firstTrialSide(r, 6, 0.23, 0.08), 0.95)
		if !ok || slow.Processes != 6 {
			t.Fatalf("FirstTrial over six processes: %+v, %v", slow, ok)
		}
		if slow.CIPct[0] > 0 {
			found++
		}
		steady, _ := FirstTrial(firstTrialSide(r, 6, 0, 0.08), 0.95)
		if steady.CIPct[0] > 0 {
			falseAlarms++
		}
	}
	t.Logf("found %d of %d, false alarms %d of %d", found, runs, falseAlarms, runs)
	if found < runs*9/10 {
		t.Errorf("a first trial 23%% slower found in %d of %d runs, want at least 90%%", found, runs)
	}
	if falseAlarms > runs*5/100 {
		t.Errorf("a steady process called slow at first in %d of %d runs, want at most 5%% (one side of a 95%% interval: 2.5%%)", falseAlarms, runs)
	}
	// Two processes leave no estimate; trials with no process are not
	// grouped.
	if e, ok := FirstTrial(firstTrialSide(r, 2, 0.23, 0.08), 0.95); ok {
		t.Errorf("FirstTrial over two processes: %+v, want none", e)
	}
	noProc := firstTrialSide(r, 6, 0.23, 0.08)
	for i := range noProc {
		noProc[i].Process = 0
	}
	if e, ok := FirstTrial(noProc, 0.95); ok {
		t.Errorf("FirstTrial with no processes known: %+v, want none", e)
	}
}

// FirstTrialNotes notes the side whose first trials ran slow, and only it.
func TestFirstTrialNotes(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 12))
	base, head := firstTrialSide(r, 6, 0.3, 0.03), firstTrialSide(r, 6, 0, 0.03)
	p := Pairs{Base: base, Head: head}
	var sc ScenarioComparison
	FirstTrialNotes(&sc, p, 0.95)
	if len(sc.Notes) != 1 || sc.Notes[0].Code != NoteFirstTrial || sc.Notes[0].Side != "base" || sc.Notes[0].Count != 6 ||
		sc.Notes[0].CIPct == nil || !(sc.Notes[0].Pct > 20 && sc.Notes[0].Pct < 40) {
		t.Errorf("notes %+v, want one first-trial note on the base side, about +30%% over 6 processes", sc.Notes)
	}
}
