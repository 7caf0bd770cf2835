package baselines

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"time"

	"github.com/perfgate/perfgate/result"
)

// HashConfig is the provenance hash of a configuration file's bytes:
// "sha256:" and the hex digest.
func HashConfig(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Update stores the results of the run in folder from as the baselines in
// folder to, stamped with prov, and returns the paths it wrote.
//
// The results are exactly those the run's manifest (result.ManifestFile, written
// by perfgate run --out) lists, each unchanged since the run wrote it;
// any other file in from, a leftover of an earlier run, is ignored. A
// folder without a manifest, or whose run did not complete, is refused.
// If any result is invalid, interrupted, damaged, or two map to the same
// file, or from holds no result, Update returns an error and writes
// nothing. Otherwise each scenario's file is replaced; baselines of
// scenarios the run did not measure are left as they were, and nothing is
// deleted. The set is replaced whole or not at all: every file is written
// to a copy of the folder, which then takes the folder's place (see
// replaceAll); a full disk leaves every old baseline as it was and names
// the file that could not be written. A zero prov.StoredAt is set to the
// current time; empty git fields are taken from the result.
func Update(from, to string, prov result.Provenance) ([]string, error) {
	rs, _, err := readRun(from, false)
	if err != nil {
		return nil, err
	}
	return write(from, to, rs, prov)
}

// Skipped is a result of a run that UpdateValid did not store, and why.
type Skipped struct {
	Scenario, File string
	Err            error
}

// UpdateValid is Update that stores what it can: a result that cannot be
// a baseline (an invalid run, a knee search that found no knee, so no
// trial) is left out and listed in skipped, and the others are stored.
// It is for a run whose every result need not gate, such as perfgate demo
// on a busy host; a release's update, which must store the whole run or
// nothing, uses Update. The run's manifest is checked as Update checks it,
// and a run none of whose results can be a baseline is an error.
func UpdateValid(from, to string, prov result.Provenance) (written []string, skipped []Skipped, err error) {
	rs, skipped, err := readRun(from, true)
	if err != nil {
		return nil, skipped, err
	}
	written, err = write(from, to, rs, prov)
	return written, skipped, err
}

// write stores rs, read from folder from, as baselines in folder to.
func write(from, to string, rs []*result.Result, prov result.Provenance) ([]string, error) {
	if prov.StoredAt.IsZero() {
		prov.StoredAt = time.Now().UTC()
	}
	type out struct {
		path string
		data []byte
	}
	var outs []out
	seen := map[string]string{}
	for _, r := range rs {
		name := result.FileName(r.Scenario)
		if other, dup := seen[name]; dup {
			return nil, fmt.Errorf("updating baselines from %q: scenarios %q and %q both map to %q: nothing written", from, other, r.Scenario, name)
		}
		seen[name] = r.Scenario
		p := prov
		if r.Git != nil {
			if p.GitSHA == "" {
				p.GitSHA = r.Git.SHA
			}
			if p.GitRef == "" {
				p.GitRef = r.Git.Ref
			}
		}
		if p.Perfgate == "" {
			p.Perfgate = r.Environment.Perfgate
		}
		r.Provenance = &p
		var buf bytes.Buffer
		if err := r.Write(&buf); err != nil {
			return nil, fmt.Errorf("updating baselines: encoding %q: %w", r.Scenario, err)
		}
		// What is written must read back as a baseline.
		if _, err := Decode(bytes.NewReader(buf.Bytes())); err != nil {
			return nil, fmt.Errorf("updating baselines: scenario %q would not read back: %w: nothing written", r.Scenario, err)
		}
		outs = append(outs, out{filepath.Join(to, name), buf.Bytes()})
	}
	files := make([]stagedFile, len(outs))
	for i, o := range outs {
		files[i] = stagedFile{o.path, o.data}
	}
	if err := replaceAll(to, files, writeSynced); err != nil {
		return nil, fmt.Errorf("updating baselines in %q: %w: nothing replaced, the baselines are as they were", to, err)
	}
	written := make([]string, len(outs))
	for i, o := range outs {
		written[i] = o.path
	}
	return written, nil
}

// readRun reads the result files a run's manifest lists, failing on the
// first that cannot become a baseline, or, with skip, listing those in
// skipped and reading on.
func readRun(dir string, skip bool) (rs []*result.Result, skipped []Skipped, err error) {
	m, err := result.ReadManifest(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("updating baselines: %w: nothing written", err)
	}
	if !m.Complete {
		return nil, nil, fmt.Errorf("updating baselines from %q: run %s did not complete (its manifest says so): nothing written", dir, m.RunID)
	}
	var paths []string
	for _, e := range m.Scenarios {
		p := filepath.Join(dir, e.File)
		sum, err := result.FileSHA256(p)
		if err != nil {
			return nil, nil, fmt.Errorf("updating baselines from %q: scenario %q: %w: nothing written", dir, e.Scenario, err)
		}
		if sum != e.SHA256 {
			return nil, nil, fmt.Errorf("updating baselines from %q: %s changed since run %s wrote it: nothing written", dir, e.File, m.RunID)
		}
		if skip {
			r, err := result.DecodeFiles([]string{p}, func(b []byte) (*result.Result, error) { return Decode(bytes.NewReader(b)) })
			if err != nil {
				skipped = append(skipped, Skipped{Scenario: e.Scenario, File: p, Err: err})
			}
			rs = append(rs, r...)
			continue
		}
		paths = append(paths, p)
	}
	if !skip {
		rs, err = result.DecodeFiles(paths, func(b []byte) (*result.Result, error) { return Decode(bytes.NewReader(b)) })
		if err != nil {
			return nil, nil, fmt.Errorf("updating baselines from %q: nothing written: %w", dir, err)
		}
	}
	if len(rs) == 0 {
		if skip && len(skipped) > 0 {
			return nil, skipped, fmt.Errorf("updating baselines from %q: none of its %d results can be a baseline: nothing written", dir, len(skipped))
		}
		return nil, skipped, fmt.Errorf("updating baselines from %q: no %s files: nothing written", dir, result.Schema)
	}
	return rs, skipped, nil
}
