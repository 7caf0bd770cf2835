package steps

import (
	"bytes"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"text/template"

	"go.yaml.in/yaml/v3"
)

// goreleaserConfig is the part of .goreleaser.yaml that the Action, the
// docs and `perfgate version` depend on.
type goreleaserConfig struct {
	Version     int    `yaml:"version"`
	ProjectName string `yaml:"project_name"`
	Builds      []struct {
		ID      string   `yaml:"id"`
		Main    string   `yaml:"main"`
		Binary  string   `yaml:"binary"`
		Goos    []string `yaml:"goos"`
		Goarch  []string `yaml:"goarch"`
		Env     []string `yaml:"env"`
		Flags   []string `yaml:"flags"`
		Ldflags []string `yaml:"ldflags"`
	} `yaml:"builds"`
	Archives []struct {
		Formats      []string `yaml:"formats"`
		NameTemplate string   `yaml:"name_template"`
	} `yaml:"archives"`
	Checksum struct {
		NameTemplate string `yaml:"name_template"`
		Algorithm    string `yaml:"algorithm"`
	} `yaml:"checksum"`
}

func readGoreleaser(t *testing.T) goreleaserConfig {
	t.Helper()
	data, err := os.ReadFile("../../.goreleaser.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var c goreleaserConfig
	if err := yaml.Unmarshal(data, &c); err != nil {
		t.Fatalf(".goreleaser.yaml: %v", err)
	}
	return c
}

// tmplData is what GoReleaser's templates see, for the fields used here.
type tmplData struct {
	ProjectName, Version, Tag, FullCommit, CommitDate, Os, Arch string
}

func render(t *testing.T, text string, d tmplData) string {
	t.Helper()
	tm, err := template.New("").Option("missingkey=error").Parse(text)
	if err != nil {
		t.Fatalf("template %q: %v", text, err)
	}
	var buf bytes.Buffer
	if err := tm.Execute(&buf, d); err != nil {
		t.Fatalf("template %q: %v", text, err)
	}
	return buf.String()
}

// releaseLdflags renders the release's -ldflags for tag and commit.
func releaseLdflags(t *testing.T, c goreleaserConfig, tag, commit, date string) string {
	t.Helper()
	return render(t, strings.Join(c.Builds[0].Ldflags, " "),
		tmplData{ProjectName: c.ProjectName, Version: strings.TrimPrefix(tag, "v"), Tag: tag, FullCommit: commit, CommitDate: date})
}

// TestGoreleaserConfig checks the release contract without GoReleaser:
// the platforms, cgo where NVML needs it, -trimpath, the stamped version,
// and archive and checksum names that ghaction/steps/install.sh finds. ci.yml's
// release-snapshot job runs the real `goreleaser check` and a snapshot.
func TestGoreleaserConfig(t *testing.T) {
	c := readGoreleaser(t)
	if c.Version != 2 {
		t.Errorf("version = %d, want 2 (GoReleaser v2)", c.Version)
	}
	type target struct{ goos, goarch, cgo string }
	var got []target
	for _, b := range c.Builds {
		if b.Main != "./cmd/perfgate" || b.Binary != "perfgate" {
			t.Errorf("build %s: main %q binary %q, want ./cmd/perfgate and perfgate", b.ID, b.Main, b.Binary)
		}
		if !slices.Contains(b.Flags, "-trimpath") {
			t.Errorf("build %s: flags %v lack -trimpath", b.ID, b.Flags)
		}
		ld := strings.Join(b.Ldflags, " ")
		for _, v := range []string{"-X main.version=v{{ .Version }}", "-X main.commit={{ .FullCommit }}", "-X main.date={{ .CommitDate }}"} {
			if !strings.Contains(ld, v) {
				t.Errorf("build %s: ldflags %q lack %q", b.ID, ld, v)
			}
		}
		cgo := ""
		for _, e := range b.Env {
			if v, ok := strings.CutPrefix(e, "CGO_ENABLED="); ok {
				cgo = v
			}
		}
		for _, goos := range b.Goos {
			for _, goarch := range b.Goarch {
				got = append(got, target{goos, goarch, cgo})
			}
		}
	}
	slices.SortFunc(got, func(a, b target) int { return strings.Compare(a.goos+a.goarch, b.goos+b.goarch) })
	want := []target{{"darwin", "amd64", "0"}, {"darwin", "arm64", "0"}, {"linux", "amd64", "1"}, {"linux", "arm64", "1"}}
	if !slices.Equal(got, want) {
		t.Errorf("targets (goos, goarch, CGO_ENABLED) = %v, want %v", got, want)
	}
	for _, p := range published {
		goos, goarch, _ := strings.Cut(p, "_")
		if !slices.Contains(want, target{goos, goarch, map[string]string{"linux": "1", "darwin": "0"}[goos]}) {
			t.Errorf("install_test.go's published lists %s, which the config does not build", p)
		}
	}

	if len(c.Archives) != 1 || !slices.Equal(c.Archives[0].Formats, []string{"tar.gz"}) {
		t.Fatalf("archives = %+v, want one, tar.gz", c.Archives)
	}
	name := render(t, c.Archives[0].NameTemplate, tmplData{ProjectName: c.ProjectName, Version: "1.2.3", Os: "linux", Arch: "arm64"}) + ".tar.gz"
	if name != "perfgate_1.2.3_linux_arm64.tar.gz" {
		t.Errorf("archive name = %q, want perfgate_1.2.3_linux_arm64.tar.gz, the name install.sh downloads", name)
	}
	if c.Checksum.NameTemplate != "checksums.txt" || c.Checksum.Algorithm != "sha256" {
		t.Errorf("checksum = %+v, want checksums.txt, sha256: install.sh reads that file", c.Checksum)
	}
}

// TestGoreleaserCheck runs `goreleaser check` when GoReleaser is installed
// (ci.yml's release-snapshot job; go install
// github.com/goreleaser/goreleaser/v2@v2.15.1).
func TestGoreleaserCheck(t *testing.T) {
	bin, err := exec.LookPath("goreleaser")
	if err != nil {
		t.Skip("goreleaser is not installed")
	}
	cmd := exec.Command(bin, "check")
	cmd.Dir = "../.."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("goreleaser check: %v\n%s", err, out)
	}
}
