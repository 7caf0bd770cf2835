package result

import "time"

// Generator says that a result is one generator's shard of a load that N
// generators sent together (perfgate run --generator I/N). The result's
// Load is the whole load, the one every shard shares; this generator sent
// its 1/N share of it: every N-th request of the open-loop schedule,
// starting at the I-th, or its share of the closed-loop concurrency.
// `perfgate merge` adds the shards of one scenario into one result.
type Generator struct {
	// Index is the 1-based generator number, Count the number of generators.
	Index int `json:"index"`
	Count int `json:"count"`
	// Concurrency is this generator's share of a closed-loop load.
	Concurrency int `json:"concurrency,omitempty"`
	// ConfigHash identifies the configuration every shard must share
	// (the config file's hash, or the command line's for --url runs).
	ConfigHash string `json:"config_hash,omitempty"`
	// StartAt is the agreed wall-clock instant the warm-up was to begin
	// (--start-at), absent when none was given.
	StartAt *time.Time `json:"start_at,omitempty"`
	// StartedAt is when this generator actually began its warm-up: the
	// spread of StartedAt over the shards is the start skew.
	StartedAt time.Time `json:"started_at"`
}

// Part says that a result was measured by one part of a partitioned suite
// (perfgate run --part I/N): the matrix job that measured it.
type Part struct {
	Index int `json:"index"`
	Count int `json:"count"`
	// ConfigHash identifies the configuration every part must share.
	ConfigHash string `json:"config_hash,omitempty"`
}

// Merged describes a result merged from generator shards.
type Merged struct {
	// Generators is the number of shards merged.
	Generators int `json:"generators"`
	// StartSkewMs is the spread of the shards' actual start instants: the
	// latest StartedAt minus the earliest, in milliseconds.
	StartSkewMs float64 `json:"start_skew_ms"`
	// MaxStartSkewMs is the bound the skew was held to; a larger skew
	// makes the merged result invalid.
	MaxStartSkewMs float64 `json:"max_start_skew_ms"`
	// Shards are the merged shards' generator records, by index.
	Shards []Generator `json:"shards"`
}
