package baselines

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/perfgate/perfgate/result"
)

var prov = result.Provenance{Tag: "v1.2.0", StoredAt: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC),
	Perfgate: "v0.1.0", ConfigHash: "sha256:abc"}

// writeRun writes results into a fresh run folder, plus a comparison
// document that Update must skip.
func writeRun(t *testing.T, rs ...*result.Result) string {
	t.Helper()
	dir := t.TempDir()
	for _, r := range rs {
		if err := r.WriteFile(filepath.Join(dir, result.FileName(r.Scenario))); err != nil {
			t.Fatal(err)
		}
	}
	m := result.NewManifest("test", time.Now())
	for _, r := range rs {
		if err := m.Add(r.Scenario, filepath.Join(dir, result.FileName(r.Scenario))); err != nil {
			t.Fatal(err)
		}
	}
	m.Complete = true
	if err := m.Write(dir); err != nil {
		t.Fatal(err)
	}
	cmp := `{"schema": "perfgate.comparison/v1", "verdict": "pass", "scenarios": []}`
	if err := os.WriteFile(filepath.Join(dir, "comparison.json"), []byte(cmp), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// snapshot reads every file of dir.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		m[e.Name()] = string(b)
	}
	return m
}

func TestUpdateReplacesOnlyMeasured(t *testing.T) {
	to := t.TempDir()
	first := writeRun(t, good("a", 1), good("b", 2))
	if _, err := Update(first, to, prov); err != nil {
		t.Fatalf("Update: %v", err)
	}
	before := snapshot(t, to)
	newA := good("a", 3)
	newA.Git = &result.Git{SHA: "feedbeef", Ref: "refs/tags/v1.3.0"}
	written, err := Update(writeRun(t, newA), to, prov)
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	if len(written) != 1 || filepath.Base(written[0]) != "a.json" {
		t.Errorf("Update wrote %v, want only a.json", written)
	}
	after := snapshot(t, to)
	if after["b.json"] != before["b.json"] {
		t.Errorf("b.json changed though b was not measured")
	}
	if after["a.json"] == before["a.json"] {
		t.Errorf("a.json was not replaced")
	}
	if len(after) != 2 {
		t.Errorf("baseline folder holds %v, want a.json and b.json only (no temporary files)", keys(after))
	}
	rs, err := Load(to)
	if err != nil {
		t.Fatalf("Load after Update: %v", err)
	}
	p := rs[0].Provenance
	if p == nil || p.GitSHA != "feedbeef" || p.Tag != "v1.2.0" || !p.StoredAt.Equal(prov.StoredAt) || p.ConfigHash != "sha256:abc" {
		t.Errorf("a's provenance = %+v, want git sha from the result and the given tag, time and hash", p)
	}
}

func TestUpdateRefuses(t *testing.T) {
	dup1, dup2 := good("x/y", 1), good("x_y", 2)
	tests := []struct {
		name string
		from func(t *testing.T) string
		want string
	}{
		{"invalid run", func(t *testing.T) string {
			r := good("a", 4)
			r.Valid = false
			return writeRun(t, good("b", 5), r)
		}, "marked invalid"},
		{"interrupted run", func(t *testing.T) string {
			r := good("a", 4)
			r.Interrupted = true
			return writeRun(t, r)
		}, "interrupted"},
		{"damaged histogram", func(t *testing.T) string {
			r := good("a", 4)
			r.Trials[0].Histogram = "%%%"
			return writeRun(t, r)
		}, "trial 1"},
		{"truncated file", func(t *testing.T) string {
			dir := writeRun(t, good("a", 4))
			p := filepath.Join(dir, "a.json")
			b, _ := os.ReadFile(p)
			os.WriteFile(p, b[:100], 0o644)
			return dir
		}, "changed since"},
		{"name collision", func(t *testing.T) string {
			dir := t.TempDir()
			dup1.WriteFile(filepath.Join(dir, "one.json"))
			dup2.WriteFile(filepath.Join(dir, "two.json"))
			m := result.NewManifest("dup", time.Now())
			m.Add(dup1.Scenario, filepath.Join(dir, "one.json"))
			m.Add(dup2.Scenario, filepath.Join(dir, "two.json"))
			m.Complete = true
			m.Write(dir)
			return dir
		}, "both map to"},
		{"no results", func(t *testing.T) string { return writeRun(t) }, "no perfgate.result/v1 files"},
		{"missing folder", func(t *testing.T) string { return filepath.Join(t.TempDir(), "nope") }, "no run manifest"},
		// Result files alone, as an older perfgate or another tool left
		// them: which run they belong to is unknown.
		{"no manifest", func(t *testing.T) string {
			dir := writeRun(t, good("a", 4))
			os.Remove(filepath.Join(dir, result.ManifestFile))
			return dir
		}, "no run manifest"},
		{"run did not complete", func(t *testing.T) string {
			dir := writeRun(t, good("a", 4))
			m, _ := result.ReadManifest(dir)
			m.Complete = false
			m.Write(dir)
			return dir
		}, "did not complete"},
		{"result changed after the run", func(t *testing.T) string {
			dir := writeRun(t, good("a", 4))
			good("a", 9).WriteFile(filepath.Join(dir, "a.json"))
			return dir
		}, "a.json changed since run test wrote it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			to := t.TempDir()
			if _, err := Update(writeRun(t, good("a", 1), good("b", 2)), to, prov); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, to)
			_, err := Update(tt.from(t), to, prov)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Update = %v, want an error containing %q", err, tt.want)
			}
			after := snapshot(t, to)
			if len(after) != len(before) {
				t.Errorf("files %v after a refused update, want %v", keys(after), keys(before))
			}
			for k, v := range before {
				if after[k] != v {
					t.Errorf("%s changed by a refused update", k)
				}
			}
		})
	}
}

func TestHashConfig(t *testing.T) {
	a, b := HashConfig([]byte("version: 1\n")), HashConfig([]byte("version: 2\n"))
	if a == b || !strings.HasPrefix(a, "sha256:") || len(a) != len("sha256:")+64 {
		t.Errorf("HashConfig = %q, %q; want distinct sha256 hex digests", a, b)
	}
}

func keys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

// FuzzDecode feeds the baseline decoder arbitrary bytes, seeded with the
// good and bad testdata: it must never panic, and whatever it accepts must
// survive a write and a second decode unchanged.
func FuzzDecode(f *testing.F) {
	for _, dir := range []string{"testdata/good", "testdata/bad"} {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err == nil {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Decode(bytes.NewReader(data))
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := r.Write(&buf); err != nil {
			t.Fatalf("accepted baseline does not encode: %v", err)
		}
		r2, err := Decode(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("accepted baseline does not decode after a round trip: %v", err)
		}
		var buf2 bytes.Buffer
		r2.Write(&buf2)
		if !bytes.Equal(buf.Bytes(), buf2.Bytes()) {
			t.Fatalf("round trip changed the baseline:\n%s\n---\n%s", buf.Bytes(), buf2.Bytes())
		}
	})
}

// Files of earlier runs left in the folder are not promoted: only the
// scenarios the manifest lists are.
func TestUpdateIgnoresLeftovers(t *testing.T) {
	from := writeRun(t, good("a", 1))
	if err := good("stale-from-last-week", 2).WriteFile(filepath.Join(from, "stale-from-last-week.json")); err != nil {
		t.Fatal(err)
	}
	to := t.TempDir()
	written, err := Update(from, to, prov)
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	if len(written) != 1 || filepath.Base(written[0]) != "a.json" {
		t.Errorf("Update wrote %v, want only a.json (the run's one scenario)", written)
	}
	if _, err := os.Stat(filepath.Join(to, "stale-from-last-week.json")); err == nil {
		t.Error("a leftover of an earlier run was promoted")
	}
}

// UpdateValid stores what can be a baseline and lists the rest with the
// reason; a run with nothing storable writes nothing.
func TestUpdateValid(t *testing.T) {
	to := t.TempDir()
	invalid := good("busy", 4)
	invalid.Valid = false
	noTrials := good("knee", 5)
	noTrials.Trials = nil
	written, skipped, err := UpdateValid(writeRun(t, good("a", 1), invalid, noTrials), to, prov)
	if err != nil {
		t.Fatalf("UpdateValid: %v", err)
	}
	if len(written) != 1 || filepath.Base(written[0]) != "a.json" {
		t.Errorf("UpdateValid wrote %v, want only a.json", written)
	}
	var got []string
	for _, s := range skipped {
		got = append(got, s.Scenario+": "+s.Err.Error())
	}
	if len(got) != 2 || !strings.Contains(got[0], "busy: ") || !strings.Contains(got[0], "marked invalid") ||
		!strings.Contains(got[1], "knee: ") || !strings.Contains(got[1], "trials") {
		t.Errorf("UpdateValid skipped %q, want busy (invalid) and knee (no trials)", got)
	}
	if _, err := Load(to); err != nil {
		t.Errorf("Load after UpdateValid: %v", err)
	}
	empty := t.TempDir()
	if w, s, err := UpdateValid(writeRun(t, invalid), empty, prov); err == nil || len(w) != 0 || len(s) != 1 {
		t.Errorf("UpdateValid of a run with no storable result = %v, %v, %v; want an error, nothing written, one skipped", w, s, err)
	}
	if after := snapshot(t, empty); len(after) != 0 {
		t.Errorf("baseline folder holds %v after a failed UpdateValid, want nothing", keys(after))
	}
}

// A file the run's manifest lists is hashed only if it is a regular file
// within the result cap (issue 43: a link to /dev/zero was hashed without
// end): the update is refused at once, naming it, and nothing is written.
func TestUpdateRefusesSpecialResultFile(t *testing.T) {
	for _, target := range []string{"/dev/zero", "fifo"} {
		t.Run(target, func(t *testing.T) {
			dir := writeRun(t, good("a", 4))
			p := filepath.Join(dir, "a.json")
			os.Remove(p)
			var err error
			if target == "fifo" {
				err = syscall.Mkfifo(p, 0o644)
			} else {
				err = os.Symlink(target, p)
			}
			if err != nil {
				t.Skip(err)
			}
			to := t.TempDir()
			done := make(chan error, 1)
			go func() { _, err := Update(dir, to, prov); done <- err }()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), p+" is not a regular file") {
					t.Errorf("Update = %v, want it refused naming %s", err, p)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Update still hashing after 10s")
			}
			if ents, _ := os.ReadDir(to); len(ents) != 0 {
				t.Errorf("%d files written by a refused update", len(ents))
			}
		})
	}
}
