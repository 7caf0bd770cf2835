package comparetest

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/perfgate/perfgate/result"
)

// WriteRun writes rs into dir as a complete run folder, as perfgate run
// --out DIR leaves one: a result file per scenario and the manifest that
// lists them. It returns the results by scenario, as the run's reader
// (and the demo's store) keys them.
func WriteRun(t testing.TB, dir string, rs ...*result.Result) map[string]*result.Result {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	m := result.NewManifest("run-"+filepath.Base(dir), time.Now())
	byName := make(map[string]*result.Result, len(rs))
	for _, r := range rs {
		byName[r.Scenario] = r
		p := filepath.Join(dir, result.FileName(r.Scenario))
		if err := r.WriteFile(p); err != nil {
			t.Fatal(err)
		}
		if err := m.Add(r.Scenario, p); err != nil {
			t.Fatal(err)
		}
	}
	m.Complete = true
	if err := m.Write(dir); err != nil {
		t.Fatal(err)
	}
	return byName
}
