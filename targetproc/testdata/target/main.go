// Command target is a small HTTP server that the harness tests start through
// StartTarget. It serves /ready (200 once ready), /env?name=X (the value of
// an environment variable) and /cwd (its working directory), and can be told
// to misbehave: to ignore SIGTERM, to exit early, or never to become ready.
//
// It prints "pid=N pgid=N" to stdout first, so a test can find a process
// even when StartTarget returned no Target.
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"
)

func main() {
	var (
		port       = flag.Int("port", 0, "port to serve on, on 127.0.0.1")
		grpcPort   = flag.Int("grpc-port", 0, "a second port serving the same handler, when not 0")
		ignoreTerm = flag.Bool("ignore-term", false, "ignore SIGTERM")
		exitEarly  = flag.Bool("exit-early", false, "print an error and exit with status 1 before listening")
		neverReady = flag.Bool("never-ready", false, "answer /ready with 503 for ever")
		readyAfter = flag.Duration("ready-after", 0, "answer /ready with 503 until this long after start")
		exitAfter  = flag.Duration("exit-after", 0, "exit with status 3 this long after start, when not 0")
	)
	flag.Parse()
	fmt.Printf("pid=%d pgid=%d\n", os.Getpid(), syscall.Getpgrp())

	if *ignoreTerm {
		signal.Ignore(syscall.SIGTERM)
	}
	if *exitEarly {
		fmt.Fprintln(os.Stderr, "fatal: model file missing")
		os.Exit(1)
	}

	start := time.Now()
	if *exitAfter > 0 {
		time.AfterFunc(*exitAfter, func() {
			fmt.Fprintln(os.Stderr, "crashing on purpose")
			os.Exit(3)
		})
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/ready", func(w http.ResponseWriter, r *http.Request) {
		if *neverReady || time.Since(start) < *readyAfter {
			http.Error(w, "not ready", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("/env", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, os.Getenv(r.URL.Query().Get("name")))
	})
	mux.HandleFunc("/cwd", func(w http.ResponseWriter, r *http.Request) {
		wd, err := os.Getwd()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		fmt.Fprint(w, wd)
	})

	if *grpcPort != 0 {
		go serve(*grpcPort, mux)
	}
	serve(*port, mux)
}

// serve listens on 127.0.0.1:port and serves h, exiting on failure.
func serve(port int, h http.Handler) {
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		fmt.Fprintln(os.Stderr, "listen:", err)
		os.Exit(2)
	}
	fmt.Printf("listening on %s\n", ln.Addr())
	if err := http.Serve(ln, h); err != nil {
		fmt.Fprintln(os.Stderr, "serve:", err)
		os.Exit(2)
	}
}
