package ghaction

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/perfgate/perfgate/internal/capread"
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/result"
)

// The comment bundle: what a pull_request job on a fork's code hands to the
// trusted workflow_run job that posts the comment.
const (
	bundleReport    = "report.json"
	bundlePR        = "pr.json"
	bundleBaseline  = "baseline"
	bundleCandidate = "candidate"
	maxBundleFiles  = 1000
	// maxBundleTrials and maxBundleBytes bound a bundle's results
	// together (each is also capped alone: result.MaxTrials trials,
	// capread.Result bytes): 1,000 files at each file's cap would
	// otherwise be read into the trusted job's memory.
	maxBundleTrials = 10_000
	maxBundleBytes  = 256 << 20
)

// BundlePR is a bundle's pr.json: the pull request and the commit measured.
type BundlePR struct {
	Number  int    `json:"number"`
	HeadSHA string `json:"head_sha"`
}

// WriteBundle writes the comment bundle to dir: the report document, the
// pull request's number and head, and the results (for the charts).
func WriteBundle(dir string, r *report.Report, pr BundlePR) error {
	for _, sub := range []string{bundleBaseline, bundleCandidate} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return fmt.Errorf("writing the comment bundle: %w", err)
		}
	}
	err := result.WriteFileAtomic(filepath.Join(dir, bundleReport), func(w io.Writer) error { return report.JSON(w, r) })
	if err == nil {
		err = result.WriteFileAtomic(filepath.Join(dir, bundlePR), func(w io.Writer) error {
			return json.NewEncoder(w).Encode(pr)
		})
	}
	for _, side := range []struct {
		sub string
		rs  []*result.Result
	}{{bundleBaseline, r.Baseline}, {bundleCandidate, r.Candidate}} {
		for i, res := range side.rs {
			if err == nil && res != nil {
				// Numbered, never named after a scenario: names come from the PR.
				err = res.WriteFile(filepath.Join(dir, side.sub, fmt.Sprintf("%04d.json", i)))
			}
		}
	}
	if err != nil {
		return fmt.Errorf("writing the comment bundle to %q: %w", dir, err)
	}
	return nil
}

// ReadBundle reads a comment bundle. Everything in it is untrusted (a fork's
// workflow can upload anything): the report is re-rendered by the caller,
// with every name escaped, and the pull request it names is checked by the
// caller.
func ReadBundle(dir string) (*report.Report, BundlePR, error) {
	var info BundlePR
	data, err := capread.ReadFile(filepath.Join(dir, bundlePR), capread.Config)
	if err != nil {
		return nil, info, fmt.Errorf("reading the comment bundle: %w", err)
	}
	if err := json.Unmarshal(data, &info); err != nil || info.Number <= 0 || !IsSHA(info.HeadSHA) {
		return nil, info, fmt.Errorf("comment bundle %q: want {\"number\": N > 0, \"head_sha\": a commit id}", filepath.Join(dir, bundlePR))
	}
	f, err := capread.Open(filepath.Join(dir, bundleReport), capread.Result)
	if err != nil {
		return nil, info, fmt.Errorf("reading the comment bundle: %w", err)
	}
	defer f.Close()
	r, err := report.Decode(f)
	if err != nil {
		return nil, info, fmt.Errorf("comment bundle %q: %w", filepath.Join(dir, bundleReport), err)
	}
	if err := checkBundleVerdict(r.Comparison); err != nil {
		return nil, info, fmt.Errorf("comment bundle %q: %w: the report contradicts itself, not posted", filepath.Join(dir, bundleReport), err)
	}
	var trials int
	var size int64
	for _, side := range []struct {
		sub string
		dst *[]*result.Result
	}{{bundleBaseline, &r.Baseline}, {bundleCandidate, &r.Candidate}} {
		paths, _ := filepath.Glob(filepath.Join(dir, side.sub, "*.json"))
		if len(paths) > maxBundleFiles {
			return nil, info, fmt.Errorf("comment bundle %q: %d result files, at most %d", dir, len(paths), maxBundleFiles)
		}
		for _, p := range paths {
			if st, err := os.Stat(p); err == nil {
				if size += st.Size(); size > maxBundleBytes {
					return nil, info, fmt.Errorf("comment bundle %q: its result files pass %d MiB together at %s: refused", dir, maxBundleBytes>>20, p)
				}
			}
			res, err := result.ReadFile(p)
			if err != nil {
				return nil, info, fmt.Errorf("comment bundle: %w", err)
			}
			if trials += len(res.Trials); trials > maxBundleTrials {
				return nil, info, fmt.Errorf("comment bundle %q: its results hold more than %d trials together at %s: refused", dir, maxBundleTrials, p)
			}
			*side.dst = append(*side.dst, res)
		}
	}
	return r, info, nil
}
