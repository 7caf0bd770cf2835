// Package baselines is the policy of a trusted baseline and its atomic
// storage: which results may be trusted as baselines, and how they are
// stored. The result format's own rules (file names, the decoder, what a
// well-formed result holds, the environment fingerprint, the run manifest)
// are package result's.
//
// A baseline folder holds one file per scenario, named
// result.FileName(scenario) (the scenario name with anything but letters, digits, '.', '_' and '-'
// replaced by '_', plus ".json"). Each file is a perfgate.result/v1 of a
// trusted build with its Provenance: git sha and ref, tag, when it was
// stored, the perfgate version and a hash of the configuration.
//
// Reading is strict because a gate that silently compares against a
// damaged baseline is worse than none: LoadFile rejects a truncated file,
// trailing data, a wrong schema, a missing scenario or trials, an invalid
// or interrupted run, and any trial histogram that does not decode, naming
// the file and what is wrong.
//
// Writing is careful because a baseline is the project's memory: Update
// reads a run's output folder, refuses (writing nothing) when any result in
// it is invalid, interrupted or undecodable, and otherwise writes each
// scenario's file atomically (temporary file, fsync, rename), replacing
// only the scenarios that run measured and deleting nothing.
package baselines
