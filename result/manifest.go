package result

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/perfgate/perfgate/internal/capread"
	"io"
	"io/fs"
	"path/filepath"
	"time"
)

// ManifestFile is the manifest's name in a run's output folder.
const ManifestFile = "manifest.json"

// ManifestSchema identifies a run manifest.
const ManifestSchema = "perfgate.manifest/v1"

// Manifest lists the results one run wrote into its output folder:
// `perfgate run --out DIR` rewrites it as each scenario is written, and
// Update promotes exactly the files it lists, unchanged since, never a
// file left in the folder by an earlier run.
type Manifest struct {
	Schema    string    `json:"schema"`
	RunID     string    `json:"run_id"`
	StartedAt time.Time `json:"started_at"`
	// Complete is set once every selected scenario was run; an
	// interrupted or crashed run leaves it false.
	Complete  bool            `json:"complete"`
	Scenarios []ManifestEntry `json:"scenarios"`
}

// ManifestEntry is one result file of the run.
type ManifestEntry struct {
	Scenario string `json:"scenario"`
	// File is the file's name in the folder (no path).
	File string `json:"file"`
	// SHA256 is the hex digest of the file as the run wrote it.
	SHA256 string `json:"sha256"`
}

// ErrNoManifest is returned for a folder without a run manifest.
var ErrNoManifest = errors.New("no run manifest")

// NewManifest starts the manifest of a run.
func NewManifest(runID string, started time.Time) *Manifest {
	return &Manifest{Schema: ManifestSchema, RunID: runID, StartedAt: started.UTC(), Scenarios: []ManifestEntry{}}
}

// Add records the result file at path (in the run's folder) for scenario,
// with the digest of its current content.
func (m *Manifest) Add(scenario, path string) error {
	sum, err := FileSHA256(path)
	if err != nil {
		return fmt.Errorf("run manifest: %w", err)
	}
	e := ManifestEntry{Scenario: scenario, File: filepath.Base(path), SHA256: sum}
	for i := range m.Scenarios {
		if m.Scenarios[i].File == e.File {
			m.Scenarios[i] = e
			return nil
		}
	}
	m.Scenarios = append(m.Scenarios, e)
	return nil
}

// Write writes the manifest into dir, atomically.
func (m *Manifest) Write(dir string) error {
	return WriteFileAtomic(filepath.Join(dir, ManifestFile), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(m)
	})
}

// ReadManifest reads the run manifest of dir; a folder without one gives
// an error wrapping ErrNoManifest.
func ReadManifest(dir string) (*Manifest, error) {
	b, err := capread.ReadFile(filepath.Join(dir, ManifestFile), capread.Config)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%q: %w (%s): it is written by perfgate run --out DIR", dir, ErrNoManifest, ManifestFile)
	}
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil || m.Schema != ManifestSchema {
		return nil, fmt.Errorf("%q: not a %s document", filepath.Join(dir, ManifestFile), ManifestSchema)
	}
	for _, e := range m.Scenarios {
		if e.File == "" || e.File != filepath.Base(e.File) || e.File == "." || e.File == ".." {
			return nil, fmt.Errorf("%q: entry %q names %q, not a file of the folder", filepath.Join(dir, ManifestFile), e.Scenario, e.File)
		}
	}
	return &m, nil
}

// FileSHA256 is the hex SHA-256 of the file at path, a regular file of
// at most capread.Result bytes (a result file: a link to /dev/zero would
// be hashed without end).
func FileSHA256(path string) (string, error) {
	f, err := capread.Open(path, capread.Result)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
