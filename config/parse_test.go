package config

import (
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func TestParseGood(t *testing.T) {
	c, err := ReadFile("testdata/good.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.SLO.P99.D(), 50*time.Millisecond; got != want {
		t.Errorf("slo.p99 = %v, want %v", got, want)
	}
	if got, want := float64(c.SLO.MaxErrorRate), 0.001; got != want {
		t.Errorf("slo.max_error_rate = %v, want %v", got, want)
	}
	if got, want := float64(c.Gate.P99Regression), 0.05; got != want {
		t.Errorf("gate.p99_regression = %v, want %v", got, want)
	}
	s := c.Scenarios[0]
	if d := cmp.Diff(Load{Mode: "rate", Rate: 200, Duration: Duration(30 * time.Second), Warmup: Duration(5 * time.Second), Trials: 5}, s.Load); d != "" {
		t.Errorf("scenarios[0].load (-want +got):\n%s", d)
	}
	if got := c.Targets["server"]; got.Name != "server" || got.ReadyTimeout.D() != 120*time.Second {
		t.Errorf("targets.server = %+v", got)
	}
	if got, want := c.Resolve(s.Body), filepath.Join("testdata", "payloads/image.json"); got != want {
		t.Errorf("Resolve(body) = %q, want %q", got, want)
	}
	if c.Hash == "" {
		t.Error("config hash is empty")
	}
}

func TestDefaults(t *testing.T) {
	c, err := Parse("p.yaml", []byte("version: 1\nscenarios:\n  - {name: a, layer: model, url: 'http://127.0.0.1:1/', load: {mode: rate, rate: 5}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	l := c.Scenarios[0].Load
	if l.Duration.D() != Defaults().Duration || l.Warmup.D() != Defaults().Warmup || l.Trials != Defaults().Trials {
		t.Errorf("load defaults = %+v", l)
	}
	if c.Capacity.Headroom != 1.3 || float64(c.Gate.P99Regression) != 0.05 || c.Gate.Confidence != 0.95 || c.Baselines != "perfgate/baselines" {
		t.Errorf("top-level defaults = %+v %+v %q", c.Capacity, c.Gate, c.Baselines)
	}
	if float64(c.Gate.ServerComputeRegression) != 0.05 {
		t.Errorf("gate.server_compute_regression default = %v, want 5%%", c.Gate.ServerComputeRegression)
	}
	c0, err := Parse("p.yaml", []byte("version: 1\ngate: {server_compute_regression: 0%}\nscenarios:\n  - {name: a, layer: model, url: 'http://127.0.0.1:1/', load: {mode: rate, rate: 5}}\n"))
	if err != nil || c0.Gate.ServerComputeRegression != 0 {
		t.Errorf("gate.server_compute_regression: 0%% = %v (%v), want 0: reported, not gated", c0.Gate.ServerComputeRegression, err)
	}
	if c.Scenarios[0].Protocol != "http" {
		t.Errorf("protocol default = %q", c.Scenarios[0].Protocol)
	}
	if c.Gate.P99Equivalence != 0 {
		t.Errorf("gate.p99_equivalence default = %v, want 0 (gate.p99_regression's)", c.Gate.P99Equivalence)
	}
	c10, err := Parse("p.yaml", []byte("version: 1\ngate: {p99_equivalence: 10%}\nscenarios:\n  - {name: a, layer: model, url: 'http://127.0.0.1:1/', load: {mode: rate, rate: 5}}\n"))
	if err != nil || float64(c10.Gate.P99Equivalence) != 0.10 {
		t.Errorf("gate.p99_equivalence: 10%% = %v (%v), want 0.10", c10.Gate.P99Equivalence, err)
	}
}

// Every bad file gives an error naming the file, the line and the key; the
// expected messages are golden files next to the inputs.
func TestParseErrorsGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/bad/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no test inputs: %v", err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".yaml")
		t.Run(name, func(t *testing.T) {
			_, err := ReadFile(f)
			if err == nil {
				t.Fatalf("ReadFile(%s) succeeded, want an error", f)
			}
			got := err.Error() + "\n"
			if !strings.HasPrefix(got, f+":") {
				t.Errorf("error %q does not start with the file name and line", got)
			}
			golden := strings.TrimSuffix(f, ".yaml") + ".err"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("reading golden file (run with -update to create it): %v", err)
			}
			if d := cmp.Diff(string(want), got); d != "" {
				t.Errorf("error for %s (-want +got):\n%s", f, d)
			}
		})
	}
}

func TestParsePercent(t *testing.T) {
	tests := []struct {
		in      string
		want    float64
		wantErr bool
	}{
		{"5%", 0.05, false},
		{"0.1%", 0.001, false},
		{" 12.5 % ", 0.125, false},
		{"5", 0, true}, // ambiguous without the sign: 5% or 500%?
		{"-1%", 0, true},
		{"abc%", 0, true},
	}
	for _, tt := range tests {
		got, err := ParsePercent(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParsePercent(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

// FuzzParse: no input may panic the parser, and whatever parses must
// validate again as it is.
func FuzzParse(f *testing.F) {
	for _, p := range []string{"testdata/good.yaml", "testdata/bad/unknown-key.yaml", "testdata/bad/wrong-type.yaml"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse("fuzz.yaml", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.yaml") {
				t.Errorf("error %q does not name the file", err)
			}
			return
		}
		if err := c.validate(); err != nil {
			t.Errorf("parsed config does not validate again: %v", err)
		}
	})
}

// aliasBomb is a file of aliases whose expansion is N × M scalar uses:
// 25 KB that a walk following every alias would expand into millions of
// key paths.
func aliasBomb(n, m int) []byte {
	var b strings.Builder
	b.WriteString("version: 1\nbaselines: &x b\nscenarios:\n  - &S {name: a, layer: model, url: 'http://127.0.0.1:1/', load: {mode: rate, rate: 1}, args: [")
	for i := range m {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("*x")
	}
	b.WriteString("]}\n")
	for range n {
		b.WriteString("  - *S\n")
	}
	return []byte(b.String())
}

// The strict walk checks an aliased node once, whatever the number of its
// uses: the nodes it visits are those of the file, not of the expansion.
func TestAliasWalkedOnce(t *testing.T) {
	data := aliasBomb(3000, 1500)
	p := &parser{file: "bomb.yaml", lines: map[string]int{}}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		t.Fatal(err)
	}
	if err := p.check(root.Content[0], reflect.TypeOf(Config{}), ""); err != nil {
		t.Fatalf("check: %v", err)
	}
	// The file has about 4,500 alias uses and 1,500 + 20 other nodes; the
	// expansion would be 4.5 million.
	if p.nodes > 10_000 {
		t.Errorf("the walk visited %d nodes, want at most 10000 (each alias once)", p.nodes)
	}
	if _, err := Parse("bomb.yaml", data); err == nil || !strings.Contains(err.Error(), "excessive aliasing") {
		t.Errorf("Parse(bomb) = %v, want yaml's excessive aliasing error", err)
	}
}

// BenchmarkParseAliasBomb measures the hostile file's refusal (time and
// B/op); the goal is under 100 ms and 50 MB.
//
//	go test -run '^$' -bench ParseAliasBomb -benchmem ./config
func BenchmarkParseAliasBomb(b *testing.B) {
	data := aliasBomb(3000, 1500)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("bomb.yaml", data); err == nil {
			b.Fatal("the alias bomb parsed")
		}
	}
	b.ReportMetric(float64(len(data)), "file-bytes")
}
