package result

// Cache is what the server's own cache counters said over a scenario's
// run: scraped before and after, the difference is the run's.
type Cache struct {
	// Source names the counters: "triton" (nv_cache_num_hits_per_model /
	// nv_cache_num_misses_per_model, in requests) or "vllm" (prefix-cache
	// hits over queries, in prompt tokens).
	Source string `json:"source"`
	// Unit is what Hits and Misses count: "requests" or "tokens".
	Unit   string  `json:"unit"`
	Hits   float64 `json:"hits"`
	Misses float64 `json:"misses"`
	// HitRate is Hits / (Hits + Misses).
	HitRate float64 `json:"hit_rate"`
	// Repeat is the fraction of inputs the scenario repeated (repeat:).
	Repeat float64 `json:"repeat,omitempty"`
}

// MetricsProbe says where the target's Prometheus metrics were read from,
// and whether they were found: "config" for a metrics: URL, "default" for
// /metrics on the target's port, tried when none was configured.
type MetricsProbe struct {
	URL    string `json:"url"`
	Origin string `json:"origin"`
	Found  bool   `json:"found"`
	// Why says what the probe saw when it found nothing usable.
	Why string `json:"why,omitempty"`
}

// Partition is the device partition a scenario's target ran on (a MIG
// slice such as 1g.10gb), and how many of them one device holds.
type Partition struct {
	Name      string `json:"name"`
	PerDevice int    `json:"per_device"`
}
