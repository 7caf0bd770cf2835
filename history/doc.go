// Package history is perfgate's memory across commits: one record per
// scenario per stored run, in the documented format perfgate.history/v1.
//
// A history is a folder of JSON Lines files, one per scenario
// (result.FileName(scenario) with ".jsonl" for ".json"), each line one
// Record: the commit, ref and date of the run, the environment's
// fingerprint (and its short hash, which series are split by), the config
// hash, the run-level value of every gated and reported metric with its
// per-process and per-trial values, and each process's merged latency
// histogram (HDR, V2 compressed base64) so that a run can be recompared
// later. Lines are appended, never rewritten, except by Compact (the
// documented retention: keep the newest Retention.Keep records per
// scenario and fingerprint, and histograms only on the newest
// Retention.KeepHistograms).
//
// A history lives in a folder (Dir) or on a git branch (Git): read with
// `git show REF:PATH` through the git CLI, written by Push, which commits
// the appended lines onto the branch's tip with plumbing commands (its own
// index file: the work tree is never touched) and retries on a rejected
// push by re-reading the new tip, so concurrent writers never lose a
// record.
//
// On top of the store: Series picks one metric of one scenario on one
// runner fingerprint in commit order; Noise learns the run-to-run noise the
// gate assumes (see noise.go).
package history
