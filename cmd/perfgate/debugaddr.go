package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/pprof"
	"runtime"
)

// debugAddrEnv names the variable that, when set to a loopback address,
// makes perfgate serve its own goroutine count and memory statistics there
// while it runs: bench/soak.sh reads them to show that a long run stays
// flat. Off when unset. Only a loopback address is accepted: the figures
// and the profiles are for the person running perfgate, not the network.
const debugAddrEnv = "PERFGATE_DEBUG_ADDR"

// debugStats is what GET /debug/stats answers.
type debugStats struct {
	Goroutines int    `json:"goroutines"`
	HeapAlloc  uint64 `json:"heap_alloc_bytes"`
	HeapInuse  uint64 `json:"heap_inuse_bytes"`
	Sys        uint64 `json:"sys_bytes"`
	NumGC      uint32 `json:"num_gc"`
}

// startDebug serves /debug/stats and /debug/pprof/ on addr and returns the
// function that stops it; with addr empty it does nothing. A bad address
// is reported on stderr and ignored: a debugging aid never fails a run.
func startDebug(addr string, stderr io.Writer) func() {
	if addr == "" {
		return func() {}
	}
	host, _, err := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		fmt.Fprintf(stderr, "perfgate: %s=%q: want a loopback address such as 127.0.0.1:6060; not serving\n", debugAddrEnv, addr)
		return func() {}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(stderr, "perfgate: %s: %v; not serving\n", debugAddrEnv, err)
		return func() {}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/stats", func(w http.ResponseWriter, _ *http.Request) {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(debugStats{Goroutines: runtime.NumGoroutine(),
			HeapAlloc: m.HeapAlloc, HeapInuse: m.HeapInuse, Sys: m.Sys, NumGC: m.NumGC})
	})
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	return func() { srv.Close() }
}
