package ghaction

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/result"
	"github.com/sethvargo/go-githubactions"
)

// TestBundleRoundTrip writes a bundle and reads it back: the pull request,
// the verdict and the results survive, and the files are numbered, never
// named after a scenario.
func TestBundleRoundTrip(t *testing.T) {
	dir := t.TempDir()
	c := &compare.Comparison{Schema: compare.Schema, Verdict: compare.Fail, Settings: compare.DefaultSettings(),
		Scenarios: []compare.ScenarioComparison{{Scenario: "../evil", Verdict: compare.Regressed}}}
	r := &report.Report{Title: "perfgate.yaml", Comparison: c,
		Candidate: []*result.Result{{Schema: result.Schema, Scenario: "../evil", Layer: "service", Valid: true}}}
	pr := BundlePR{Number: 7, HeadSHA: strings.Repeat("a", 40)}
	if err := WriteBundle(dir, r, pr); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, bundleCandidate, "0000.json")); err != nil {
		t.Errorf("candidate result not numbered: %v", err)
	}
	got, gotPR, err := ReadBundle(dir)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(pr, gotPR); d != "" {
		t.Errorf("pr.json (-want +got):\n%s", d)
	}
	if got.Comparison.Verdict != compare.Fail || len(got.Candidate) != 1 || got.Candidate[0].Scenario != "../evil" {
		t.Errorf("ReadBundle = verdict %q, %d candidates, want fail and 1", got.Comparison.Verdict, len(got.Candidate))
	}
}

func TestReadBundleRefusesABadPR(t *testing.T) {
	tests := []struct{ name, pr string }{
		{"no number", `{"head_sha": "` + strings.Repeat("a", 40) + `"}`},
		{"short sha", `{"number": 3, "head_sha": "abc"}`},
		{"not json", `number: 3`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, bundlePR), []byte(tt.pr), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, _, err := ReadBundle(dir); err == nil || !strings.Contains(err.Error(), "pr.json") {
				t.Errorf("ReadBundle(%s) error = %v, want one naming pr.json", tt.pr, err)
			}
		})
	}
}

// TestOutputsDelimiters: every value gets its own delimiter, so a value
// holding "ghadelimiter_..." lines cannot forge another output.
func TestOutputsDelimiters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out")
	getenv := func(k string) string {
		if k == "GITHUB_OUTPUT" {
			return path
		}
		return ""
	}
	var stdout bytes.Buffer
	gha := githubactions.New(githubactions.WithGetenv(getenv), githubactions.WithWriter(&stdout))
	Outputs(gha, getenv, Output{"verdict", "pass\nghadelimiter_x\nverdict<<y\nforged"}, Output{"report", "r.json"})
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	if !strings.HasPrefix(lines[0], "verdict<<ghadelimiter_") {
		t.Fatalf("first line %q", lines[0])
	}
	delim := strings.TrimPrefix(lines[0], "verdict<<")
	if len(delim) != len("ghadelimiter_")+32 || strings.Count(string(data), delim) != 2 {
		t.Errorf("delimiter %q not a fresh random one used twice:\n%s", delim, data)
	}
}

func TestReadInputs(t *testing.T) {
	tests := []struct {
		name    string
		vars    map[string]string
		want    Inputs
		wantErr string
	}{
		{"defaults", nil, Inputs{Config: DefaultConfig, Mode: ModeGate, FailOnRegression: true, Comment: true, CompareWith: CompareBaselines}, ""},
		{"composite spelling", map[string]string{"INPUT_FAIL_ON_REGRESSION": "false", "INPUT_MODE": "baseline"},
			Inputs{Config: DefaultConfig, Mode: ModeBaseline, Comment: true, CompareWith: CompareBaselines}, ""},
		// The runner names an input INPUT_ plus its name upper-cased,
		// hyphens kept: INPUT_ON-INCONCLUSIVE.
		{"results and on-inconclusive", map[string]string{"INPUT_RESULTS": " perfgate-out/merged\n", "INPUT_ON-INCONCLUSIVE": "rerun"},
			Inputs{Config: DefaultConfig, Mode: ModeGate, FailOnRegression: true, Comment: true, CompareWith: CompareBaselines,
				Results: "perfgate-out/merged", OnInconclusive: "rerun"}, ""},
		// action.yml's composite step spells them with underscores.
		{"composite on-inconclusive", map[string]string{"INPUT_ON_INCONCLUSIVE": "fail"},
			Inputs{Config: DefaultConfig, Mode: ModeGate, FailOnRegression: true, Comment: true, CompareWith: CompareBaselines,
				OnInconclusive: "fail"}, ""},
		{"bad on-inconclusive", map[string]string{"INPUT_ON-INCONCLUSIVE": "retry"}, Inputs{}, `input on-inconclusive is "retry": want pass, fail or rerun`},
		{"bad mode", map[string]string{"INPUT_MODE": "deploy"}, Inputs{}, "input mode"},
		{"bad bool", map[string]string{"INPUT_COMMENT": "yes please"}, Inputs{}, "input comment"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv := func(k string) string { return tt.vars[k] }
			gha := githubactions.New(githubactions.WithGetenv(getenv))
			got, err := ReadInputs(gha, getenv, "")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("ReadInputs error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("ReadInputs (-want +got):\n%s", d)
			}
		})
	}
}

// The inputs as the process's environment holds them on a runner, read
// through os.Getenv as cmd/perfgate passes it: hyphenated names and all.
func TestReadInputsProcessEnv(t *testing.T) {
	for k, v := range map[string]string{"INPUT_RESULTS": "merged", "INPUT_ON-INCONCLUSIVE": "fail", "INPUT_COMPARE-WITH": "both",
		"INPUT_FAIL-ON-REGRESSION": "false", "INPUT_COMMENT-DIR": "bundle"} {
		t.Setenv(k, v)
	}
	gha := githubactions.New(githubactions.WithGetenv(os.Getenv))
	got, err := ReadInputs(gha, os.Getenv, "")
	if err != nil {
		t.Fatal(err)
	}
	want := Inputs{Config: DefaultConfig, Mode: ModeGate, Comment: true, CompareWith: CompareBoth,
		CommentDir: "bundle", Results: "merged", OnInconclusive: "fail"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ReadInputs (-want +got):\n%s", d)
	}
}
