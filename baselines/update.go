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
	rs, err := readRun(from)
	if err != nil {
		return nil, err
	}
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
// first that cannot become a baseline.
func readRun(dir string) ([]*result.Result, error) {
	m, err := result.ReadManifest(dir)
	if err != nil {
		return nil, fmt.Errorf("updating baselines: %w: nothing written", err)
	}
	if !m.Complete {
		return nil, fmt.Errorf("updating baselines from %q: run %s did not complete (its manifest says so): nothing written", dir, m.RunID)
	}
	var paths []string
	for _, e := range m.Scenarios {
		p := filepath.Join(dir, e.File)
		sum, err := result.FileSHA256(p)
		if err != nil {
			return nil, fmt.Errorf("updating baselines from %q: scenario %q: %w: nothing written", dir, e.Scenario, err)
		}
		if sum != e.SHA256 {
			return nil, fmt.Errorf("updating baselines from %q: %s changed since run %s wrote it: nothing written", dir, e.File, m.RunID)
		}
		paths = append(paths, p)
	}
	rs, err := result.DecodeFiles(paths, func(b []byte) (*result.Result, error) { return Decode(bytes.NewReader(b)) })
	if err != nil {
		return nil, fmt.Errorf("updating baselines from %q: nothing written: %w", dir, err)
	}
	if len(rs) == 0 {
		return nil, fmt.Errorf("updating baselines from %q: no %s files: nothing written", dir, result.Schema)
	}
	return rs, nil
}
