package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/perfgate/perfgate/baselines"
	"github.com/perfgate/perfgate/result"
)

// `perfgate baseline update` and the Action's baseline mode record one
// provenance from the runner's variables: the tag only on a tag ref, the
// config file's sha256.
func TestStoredProvenance(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "perfgate.yaml")
	if err := os.WriteFile(cfg, []byte("version: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		vars    map[string]string
		cfgPath string
		want    result.Provenance
	}{
		{"release tag", map[string]string{"GITHUB_SHA": "feed", "GITHUB_REF": "refs/tags/v1.2.0", "GITHUB_REF_NAME": "v1.2.0", "GITHUB_REF_TYPE": "tag"}, cfg,
			result.Provenance{GitSHA: "feed", GitRef: "refs/tags/v1.2.0", Tag: "v1.2.0", Perfgate: version, ConfigHash: baselines.HashConfig([]byte("version: 1\n"))}},
		// A push to a branch names the branch in GITHUB_REF_NAME: no tag.
		{"branch push", map[string]string{"GITHUB_SHA": "beef", "GITHUB_REF": "refs/heads/main", "GITHUB_REF_NAME": "main", "GITHUB_REF_TYPE": "branch"}, "",
			result.Provenance{GitSHA: "beef", GitRef: "refs/heads/main", Perfgate: version}},
		{"outside CI", nil, "", result.Provenance{Perfgate: version}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &env{getenv: func(k string) string { return tt.vars[k] }}
			got, err := storedProvenance(e, tt.cfgPath)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("storedProvenance (-want +got):\n%s", d)
			}
		})
	}
	if _, err := storedProvenance(&env{getenv: func(string) string { return "" }}, filepath.Join(t.TempDir(), "missing.yaml")); err == nil {
		t.Error("storedProvenance with a missing config file: nil error, want one")
	}
}
