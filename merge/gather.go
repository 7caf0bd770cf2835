package merge

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/perfgate/perfgate/internal/capread"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/perfgate/perfgate/result"
)

// Input is one result read from a file.
type Input struct {
	Path   string
	Result *result.Result
}

// Read reads the results at paths: each a result file, or a folder walked
// recursively for them (as a CI system's downloaded artifacts are laid
// out: one sub-folder per job). In folders, hidden entries and JSON
// documents of other kinds (comparisons, sizings) are skipped; a file
// named on its own must be a result. Every file that fails is reported.
func Read(paths []string) ([]Input, error) {
	var ins []Input
	var errs []error
	add := func(p string) {
		rs, err := result.ReadResults(p)
		if err != nil {
			errs = append(errs, err)
			return
		}
		for _, r := range rs {
			ins = append(ins, Input{Path: p, Result: r})
		}
	}
	for _, root := range paths {
		st, err := os.Stat(root)
		if err != nil {
			errs = append(errs, fmt.Errorf("results %q: %w", root, err))
			continue
		}
		if !st.IsDir() {
			add(root)
			continue
		}
		var files []string
		err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if p != root && strings.HasPrefix(d.Name(), ".") {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if !d.IsDir() && strings.HasSuffix(d.Name(), ".json") && isResult(p) {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			errs = append(errs, fmt.Errorf("results %q: %w", root, err))
			continue
		}
		if len(files) == 0 {
			errs = append(errs, fmt.Errorf("results %q: no %s files in it or its sub-folders", root, result.Schema))
		}
		sort.Strings(files)
		for _, f := range files {
			add(f)
		}
	}
	return ins, errors.Join(errs...)
}

// isResult reports whether the JSON file at p is (or claims to be, or may
// be) a result rather than another perfgate document.
func isResult(p string) bool {
	b, err := capread.ReadFile(p, capread.Result)
	if err != nil {
		return true // let the reader report it
	}
	var head struct {
		Schema string `json:"schema"`
	}
	if json.Unmarshal(b, &head) != nil || head.Schema == "" {
		return true
	}
	return strings.HasPrefix(head.Schema, "perfgate.result/")
}

// Gather turns the inputs into one result per scenario, sorted by name:
// generator shards of a scenario are merged (Shards), a scenario measured
// once is kept as it is. It refuses a scenario measured more than once
// other than as the shards of one load, shards mixed with a whole result,
// and results of parts of different configurations or partitions.
func Gather(ins []Input, o Options) ([]*result.Result, error) {
	byName := map[string][]Input{}
	var names []string
	var part *result.Part
	var partFrom string
	for _, in := range ins {
		r := in.Result
		if _, ok := byName[r.Scenario]; !ok {
			names = append(names, r.Scenario)
		}
		byName[r.Scenario] = append(byName[r.Scenario], in)
		if p := r.Part; p != nil {
			if part == nil {
				part, partFrom = p, in.Path
			} else if p.ConfigHash != part.ConfigHash || p.Count != part.Count {
				return nil, mismatch("%s (part %d/%d, config %s) and %s (part %d/%d, config %s) come from different partitions or configurations: gather the parts of one run",
					partFrom, part.Index, part.Count, part.ConfigHash, in.Path, p.Index, p.Count, p.ConfigHash)
			}
		}
	}
	sort.Strings(names)
	var out []*result.Result
	for _, n := range names {
		group := byName[n]
		var shards []*result.Result
		var whole []Input
		for _, in := range group {
			if in.Result.Generator != nil {
				shards = append(shards, in.Result)
			} else {
				whole = append(whole, in)
			}
		}
		switch {
		case len(whole) > 1:
			return nil, mismatch("scenario %s is measured in both %s and %s: gather each scenario once", n, whole[0].Path, whole[1].Path)
		case len(whole) == 1 && len(shards) > 0:
			return nil, mismatch("scenario %s: %s is a whole result, yet generator shards of it were given too", n, whole[0].Path)
		case len(whole) == 1:
			out = append(out, whole[0].Result)
		default:
			m, err := Shards(shards, o)
			if err != nil {
				return nil, err
			}
			out = append(out, m)
		}
	}
	return out, nil
}

// WriteDir writes each result into dir as the scenario's result file (the
// name a run and a baseline folder use), atomically, and returns the paths.
func WriteDir(dir string, rs []*result.Result) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating %q: %w", dir, err)
	}
	var paths []string
	// The merged folder is one run for baseline update: its manifest
	// lists exactly what this merge wrote.
	m := result.NewManifest(fmt.Sprintf("merge-%d", time.Now().UnixNano()), time.Now())
	for _, r := range rs {
		p := filepath.Join(dir, result.FileName(r.Scenario))
		if err := r.WriteFile(p); err != nil {
			return paths, fmt.Errorf("writing %q: %w", p, err)
		}
		if err := m.Add(r.Scenario, p); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	m.Complete = true
	if err := m.Write(dir); err != nil {
		return paths, fmt.Errorf("writing the manifest in %q: %w", dir, err)
	}
	return paths, nil
}
