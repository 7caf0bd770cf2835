package ghaction

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/compare/comparetest"
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/result"
)

// A bundle's report.json that is a FIFO or a device is refused at once
// (issue 43: a FIFO hung the trusted comment job for 10 minutes, deaf to
// SIGTERM), and one past the 64 MiB cap is refused unread.
func TestReadBundleRefusesSpecialReport(t *testing.T) {
	pr := `{"number": 3, "head_sha": "` + strings.Repeat("a", 40) + `"}`
	tests := []struct {
		name    string
		plant   func(path string) error
		wantErr string
	}{
		{"a FIFO", func(p string) error { return syscall.Mkfifo(p, 0o644) }, "is not a regular file"},
		{"a link to /dev/zero", func(p string) error { return os.Symlink("/dev/zero", p) }, "is not a regular file"},
		{"a sparse 1.5 GB file", func(p string) error {
			f, err := os.Create(p)
			if err == nil {
				err = f.Truncate(1500 << 20)
				f.Close()
			}
			return err
		}, "more than the 64 MiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, bundlePR), []byte(pr), 0o644)
			if err := tt.plant(filepath.Join(dir, bundleReport)); err != nil {
				t.Skip(err)
			}
			done := make(chan error, 1)
			go func() { _, _, err := ReadBundle(dir); done <- err }()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), bundleReport) {
					t.Errorf("ReadBundle = %v, want an error naming report.json with %q", err, tt.wantErr)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("ReadBundle still blocked after 5s")
			}
		})
	}
}

// A bundle's results are bounded together as well as each alone (issue
// 43: a fork could send 1,000 files at each file's cap to the trusted
// job): more than maxBundleTrials trials in all is refused, naming the
// bundle.
func TestReadBundleBoundsTrials(t *testing.T) {
	dir := t.TempDir()
	r := &report.Report{Title: "perfgate.yaml", Comparison: &compare.Comparison{Schema: compare.Schema, Verdict: compare.NoBaseline, Settings: compare.DefaultSettings()}}
	if err := WriteBundle(dir, r, BundlePR{Number: 7, HeadSHA: strings.Repeat("a", 40)}); err != nil {
		t.Fatal(err)
	}
	res := comparetest.Result(comparetest.Spec{Scenario: "api", Layer: "service", Trials: result.MaxTrials, Requests: 50, MedianMs: 10}, rand.New(rand.NewPCG(1, 1)))
	n := maxBundleTrials/result.MaxTrials + 1
	for i := range n {
		if err := res.WriteFile(filepath.Join(dir, bundleCandidate, fmt.Sprintf("%04d.json", i))); err != nil {
			t.Fatal(err)
		}
	}
	_, _, err := ReadBundle(dir)
	if want := fmt.Sprintf("hold more than %d trials together", maxBundleTrials); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("ReadBundle(%d results of %d trials) = %v, want an error with %q", n, result.MaxTrials, err, want)
	}
}
