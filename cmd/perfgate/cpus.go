package main

import (
	"fmt"
	"io"
	"runtime"

	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/internal/cpuset"
	"github.com/perfgate/perfgate/suite"
)

// pinGenerator pins this process, the load generator, to its CPU set:
// list (--generator-cpus) or else cfg's generator_cpus, when the host has
// those CPUs, and sizes GOMAXPROCS to it (the runtime reads the mask only
// at start). It returns the run's CPU isolation for suite.Options.CPUs;
// a set that could not be applied is said on log and recorded in every
// result.
func pinGenerator(cfg *config.Config, list string, log io.Writer) (*suite.CPUIsolation, error) {
	if list == "" {
		list = cfg.GeneratorCPUs
	}
	host, _ := cpuset.Allowed() // none off Linux: PlanGenerator says so
	iso, err := suite.PlanGenerator(list, host)
	if err != nil {
		return nil, withCode(exitUsage, err)
	}
	if len(iso.Generator) > 0 {
		if err := cpuset.Pin(iso.Generator); err != nil {
			iso.NotApplied = append(iso.NotApplied, err.Error())
			iso.Generator = nil
		} else {
			runtime.GOMAXPROCS(len(iso.Generator))
			fmt.Fprintf(log, "perfgate: the load generator runs on CPUs %s (of %s)\n", iso.Generator, host)
		}
	}
	for _, why := range iso.NotApplied {
		fmt.Fprintf(log, "perfgate: %s\n", why)
	}
	return iso, nil
}
