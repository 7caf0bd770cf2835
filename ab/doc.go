// Package ab measures a pull request's head against its base on the same
// runner, interleaved: `perfgate gate --ab REF`.
//
// # Model
//
// Stored baselines were measured days ago on a runner whose state has
// moved since (clocks, temperature, drivers, neighbours); the gate then
// reads the runner's drift as the code's change. An A/B run removes the
// drift instead of fighting it: it checks REF out in a detached git
// worktree in a temporary folder (removed on every exit path), builds each
// target in both checkouts (the target's `build:` argv), starts the base
// target from the worktree and the head target from the current checkout,
// and measures every scenario on both sides in ABBA order
// (A B B A A B B A …), each trial after its own warm-up, the same load,
// env and port layout on both sides.
//
// Adjacent trials form pairs; compare.ComparePaired merges pairs until
// each side holds enough requests for the P99, and turns them into
// per-metric log ratios (each side's quantile from its merged histogram),
// Student's paired t-test and interval, with Holm's correction across the
// gated metrics. A slow drift
// moves both trials of a pair alike and cancels in the ratio; ABBA order
// alternates which side goes first, so a drift within a pair cancels in the
// mean as well.
//
// Measuring stops early: after three ABBA blocks and every ~30% of
// ab.max_trials after that, the comparison is looked at
// and the scenario stops once every gated metric is decided, at a level
// spent over the looks (compare.Sequential), else at ab.max_trials pairs or
// the ab.budget time. Each side runs in at least two fresh processes over a
// scenario (with ab.resident both, both are restarted after every block,
// or every second one when a start costs more than a tenth of a block,
// which side starts first alternating; with ab.resident one, every switch of side
// starts a fresh process), so one unlucky process is not read as the
// change. The report gives the trials and runner time spent beside what the
// fixed design (max_trials pairs) would have spent, and how far the base
// side drifted during the run: the drift the pairing cancelled.
//
// Knee searches (load mode sweep) probe both sides at the same rates back
// to back: each probe rate is measured on A then B (or B then A,
// alternating), and each side's knee search (and its confirmation rounds)
// reads its own points. Each search gets twice the sweep budget (a probe
// pair is two windows); a side whose search ends without a bracket is
// invalid; a probe pair measured while the host was busy is measured again
// (a few a sweep). The confirmation runs at least MinPairedKneeRounds
// interleaved rounds (from one bracket holding both knees, unless they
// are more than knee.ShareApart apart), and up to MaxKneeRoundsFactor times as many when
// the planned ones leave max QPS undecided (kneeDesign: two looks, the
// level spent over them); a round with a busy probe is run once more, and max
// QPS is tested over the quiet rounds when two or more are left (a busy
// probe outside them vetoes nothing), else over all: the other work then
// loaded both sides of nearly every round, and the paired test holds it.
//
// Duet is the concurrent design (ab.design: concurrent): a fixed-rate
// scenario's two sides measured at once, fresh processes for both every
// block, one generator a side sending the same open-loop schedule from
// the same instant, the sides' CPU halves swapped at every start; the
// looks and the paired test are Interleave's. Knee searches, closed
// loops and automatic warm-ups stay interleaved (duetFits says why).
//
// MeasurePairs measures a config's declared pairs (two scenarios of the
// current checkout: `perfgate demo`'s layer pairs and ladder steps) by the
// same design.
//
// Targets given as a URL are refused: perfgate did not start them, so both
// sides would hit one service.
package ab
