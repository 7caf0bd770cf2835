package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The output layout, the same for every command:
//
//	perfgate-out/               run --config, gate and the Action write here
//	  results/                  one perfgate.result/v1 file per scenario, the
//	                            target logs, and the run's manifest
//	  comparison.json           gate: perfgate.comparison/v1
//	  report.md                 gate: the report posted on the PR
//	  report.html               gate: the same with charts, one offline page
//
// Commands that read results (compare --candidate, baseline update --from,
// report) take the results folder, a single result file, or the output
// folder above results/.
const (
	defaultOutDir  = "perfgate-out"
	resultsSubdir  = "results"
	defaultResults = defaultOutDir + "/" + resultsSubdir
)

// resultsPath resolves a path given for results: a file or a folder
// holding result files is used as it is; an output folder holding
// results/ (perfgate-out) means its results/. A path that does not exist
// is a usage error naming what was expected.
func resultsPath(flagName, path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		if os.IsNotExist(err) {
			return "", fmt.Errorf("%s %s: no such file or folder: want a result file, a results folder (%s), or the output folder above it (%s)",
				flagName, path, defaultResults, defaultOutDir)
		}
		return "", fmt.Errorf("%s %s: %w", flagName, path, err)
	}
	if !st.IsDir() {
		return path, nil
	}
	sub := filepath.Join(path, resultsSubdir)
	if st, err := os.Stat(sub); err == nil && st.IsDir() && !hasJSON(path) {
		return sub, nil
	}
	return path, nil
}

// hasJSON reports whether dir holds a *.json file other than the gate's
// own comparison.
func hasJSON(dir string) bool {
	ents, _ := os.ReadDir(dir)
	for _, de := range ents {
		if n := de.Name(); !de.IsDir() && strings.HasSuffix(n, ".json") && n != "comparison.json" {
			return true
		}
	}
	return false
}
