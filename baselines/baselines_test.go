package baselines

import (
	"bytes"
	"errors"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/compare/comparetest"
	"github.com/perfgate/perfgate/result"
)

var update = flag.Bool("update", false, "rewrite the testdata baseline files")

// good returns a small valid result for scenario name.
func good(name string, seed uint64) *result.Result {
	return comparetest.Result(comparetest.Spec{Scenario: name, Layer: "service", Trials: 2, Requests: 200,
		MedianMs: 3, Noise: 0.02}, rand.New(rand.NewPCG(seed, 2)))
}

func encode(t *testing.T, r *result.Result) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := r.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// badFiles are the damaged baselines under testdata/bad, each derived from
// testdata/good/ok.json, with the error each must produce.
var badFiles = []struct {
	file string
	make func(ok []byte) []byte
	want string
}{
	{"truncated.json", func(ok []byte) []byte { return ok[:len(ok)/2] }, "truncated JSON"},
	{"empty.json", func([]byte) []byte { return nil }, "empty file"},
	{"bad-base64.json", func(ok []byte) []byte {
		return replaceField(ok, `"histogram": "`, `"histogram": "HISTF@@@not-base64`)
	}, `trial 1: field "histogram"`},
	{"wrong-schema.json", func(ok []byte) []byte {
		return bytes.Replace(ok, []byte(result.Schema), []byte("perfgate.result/v2"), 1)
	}, `schema is "perfgate.result/v2"`},
	{"no-trials.json", func(ok []byte) []byte {
		i := bytes.Index(ok, []byte(`"trials": [`))
		j := bytes.Index(ok, []byte("\n  ],\n"))
		return append(append(append([]byte{}, ok[:i]...), `"trials": [`...), ok[j+3:]...)
	}, `missing field "trials"`},
	{"invalid-run.json", func(ok []byte) []byte {
		return bytes.Replace(ok, []byte(`"valid": true,`+"\n  \"provenance"), []byte(`"valid": false,`+"\n  \"provenance"), 1)
	}, "marked invalid"},
	{"trailing.json", func(ok []byte) []byte { return append(append([]byte{}, ok...), "{}"...) }, "trailing data"},
	{"wrong-type.json", func(ok []byte) []byte {
		return bytes.Replace(ok, []byte(`"requests": 200,`), []byte(`"requests": "many",`), 1)
	}, `field "trials.requests"`},
	{"no-scenario.json", func(ok []byte) []byte {
		return bytes.Replace(ok, []byte(`"scenario": "ok"`), []byte(`"scenario": ""`), 1)
	}, `missing field "scenario"`},
}

// replaceField replaces the first occurrence of prefix and the value's
// first 8 characters after it.
func replaceField(b []byte, prefix, with string) []byte {
	i := bytes.Index(b, []byte(prefix))
	return append(append(append([]byte{}, b[:i]...), with...), b[i+len(prefix)+8:]...)
}

func TestTestdata(t *testing.T) {
	okPath := filepath.Join("testdata", "good", "ok.json")
	if *update {
		r := good("ok", 1)
		r.Provenance = &result.Provenance{GitSHA: "0123abc", Tag: "v1.0.0",
			StoredAt: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), Perfgate: "v0.1.0", ConfigHash: HashConfig([]byte("version: 1\n"))}
		if err := os.WriteFile(okPath, encode(t, r), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ok, err := os.ReadFile(okPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, bf := range badFiles {
		p := filepath.Join("testdata", "bad", bf.file)
		if *update {
			if err := os.WriteFile(p, bf.make(ok), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := LoadFile(okPath); err != nil {
		t.Errorf("LoadFile(%q) = %v, want no error", okPath, err)
	}
}

func TestLoadFileBad(t *testing.T) {
	for _, bf := range badFiles {
		t.Run(bf.file, func(t *testing.T) {
			p := filepath.Join("testdata", "bad", bf.file)
			_, err := LoadFile(p)
			if err == nil {
				t.Fatalf("LoadFile(%q) = nil error, want one containing %q", p, bf.want)
			}
			if !strings.Contains(err.Error(), bf.want) || !strings.Contains(err.Error(), p) {
				t.Errorf("LoadFile(%q) = %q, want it to name the file and contain %q", p, err, bf.want)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	rs, err := Load(filepath.Join("testdata", "good"))
	if err != nil || len(rs) != 1 || rs[0].Scenario != "ok" || rs[0].Provenance == nil {
		t.Fatalf("Load(testdata/good) = %d results, %v; want the one baseline with provenance", len(rs), err)
	}
	_, err = Load(filepath.Join("testdata", "bad"))
	for _, bf := range badFiles {
		if err == nil || !strings.Contains(err.Error(), bf.file) {
			t.Errorf("Load(testdata/bad) = %v, want it to name %s", err, bf.file)
		}
	}
	// An empty folder is a first run; a missing one is not (issue 43: a
	// mistyped path read as a first run switched the gate off): its error
	// names it, and is ErrNoFolder, never ErrNoBaselines.
	if dir := t.TempDir(); true {
		if _, err := Load(dir); !errors.Is(err, ErrNoBaselines) {
			t.Errorf("Load(%q) = %v, want ErrNoBaselines", dir, err)
		}
	}
	missing := filepath.Join(t.TempDir(), "missing")
	if _, err := Load(missing); !errors.Is(err, ErrNoFolder) || errors.Is(err, ErrNoBaselines) || !strings.Contains(err.Error(), missing) {
		t.Errorf("Load(%q) = %v, want ErrNoFolder naming it, not ErrNoBaselines", missing, err)
	}
	// A file whose name does not match its scenario is refused.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "other.json"), encode(t, good("ok", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), `holds scenario "ok"`) {
		t.Errorf("Load with a misnamed file = %v, want the mismatch named", err)
	}
}

// A baseline's noise floor is range-checked (issue 43: an absurd one,
// which raises the gate's threshold to it, was accepted): out of range,
// the file is refused naming itself, the field and the value.
func TestLoadFileNoiseFloorRange(t *testing.T) {
	tests := []struct {
		name    string
		floor   float64
		wantErr string
	}{
		{"a real floor", 12.5, ""},
		{"the largest", result.MaxNoiseFloorPct, ""},
		{"negative", -1, `field "noise_floor_pct.p99_ms" is -1: out of range`},
		{"absurd", 1e300, `field "noise_floor_pct.p99_ms" is 1e+300: out of range`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := good("ok", 1)
			r.NoiseFloorPct = map[string]float64{"p99_ms": tt.floor}
			p := filepath.Join(t.TempDir(), "ok.json")
			if err := os.WriteFile(p, encode(t, r), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := LoadFile(p)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("LoadFile(floor %v) = %v", tt.floor, err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), p)):
				t.Errorf("LoadFile(floor %v) = %v, want an error naming %s with %q", tt.floor, err, p, tt.wantErr)
			}
		})
	}
}
