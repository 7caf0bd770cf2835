// Package bisect finds the commit that caused a performance change:
// `perfgate bisect --good A --bad B`.
//
// # Model
//
// The commits between A and B are listed along the first-parent chain
// (git rev-list --first-parent A..B), oldest first: index 0 is A (good),
// the last is B (bad). Each step is a same-runner A/B of two commits with
// the paired statistics and adaptive stopping of `gate --ab` (package ab):
// both commits are checked out in temporary worktrees, each built with its
// targets' `build:`, and measured interleaved (ABBA), or both at once
// under ab.design: concurrent.
//
// The first step measures A against B: it establishes the change and its
// direction (regressed or improved); when A and B cannot be told apart the
// bisection stops with "no-change", and when the step cannot decide, with
// "inconclusive". Then a binary search keeps a window (lo, hi] with lo
// like A and hi like B: each step measures A against the commit in the
// middle; the same verdict as B moves hi there, "unchanged" moves lo
// there. A step the gate calls inconclusive still decides when its whole
// interval lies on one side of the bar: half the A→B change, or the gate's
// threshold when that is smaller (the midpoint rule). Beyond the bar the
// commit is like B; short of it, like A. The threshold caps the bar
// because a commit whose change may exceed it is not like A: two commits
// adding 15% each against a 10% threshold make A→B +32%, and the first
// alone, measured +9.9% [+6.3, +13.6], was short of half of that and was
// put on A's side, so that the search named the commit after it. A step
// whose interval straddles the bar is measured once more with fresh
// pairs; when the second straddles it too, the search stops as
// "inconclusive" with the narrowest window established. When the
// window is one commit wide, a last step measures that commit against its
// parent: the culprit's own change, with its interval, which may be less
// than A→B's when several commits contributed (the report then says so).
// When that own change measures unchanged and the parent was put on A's
// side by the midpoint rule alone, the two steps contradict each other
// (the same code measured on both sides of the change: one was noise):
// the parent is measured against A once more, with fresh pairs, and when
// it is like B it becomes the window's top and the search goes on below
// it (TestBisectLoopback's two 15% commits once named the commit after
// the first as the culprit this way, on a host shared with CI's other
// packages).
//
// Measuring against A, not against the window's lower end, keeps every
// step's question the same ("is this commit already like B?") and lets a
// change made of several small steps be found at its first detectable
// step.
//
// The steps, each one's verdict, P99 change and interval, pairs and runner
// time, and the total runner time are in the Outcome.
package bisect
