package result

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFileName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"kserve-int8", "kserve-int8.json"},
		{"a/b c", "a_b_c.json"},
		{"../etc/passwd", "_._etc_passwd.json"},
		{"", "_.json"},
		{"ünï", "_n_.json"},
	}
	for _, tt := range tests {
		if got := FileName(tt.in); got != tt.want {
			t.Errorf("FileName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFingerprint(t *testing.T) {
	h200 := Environment{CPU: "AMD EPYC  9654", Cores: 16,
		GPUs: []GPU{{Name: "NVIDIA H200", Driver: "550.54", CUDA: "12.4", MIG: "disabled"}}}
	f := FingerprintOf(h200)
	if got, want := f.String(), "1× NVIDIA H200 (driver 550.54, CUDA 12.4, MIG disabled), AMD EPYC 9654 × 16 cores"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	tests := []struct {
		name        string
		edit        func(e *Environment)
		wantMism    []string
		wantUnknown int
	}{
		{"same", func(e *Environment) {}, nil, 0},
		{"host and perfgate ignored", func(e *Environment) { e.Host, e.Perfgate = "runner-7", "v9" }, nil, 0},
		{"other gpu", func(e *Environment) { e.GPUs[0].Name = "NVIDIA A100" },
			[]string{"gpu model: baseline NVIDIA H200, candidate NVIDIA A100"}, 0},
		{"two gpus", func(e *Environment) { e.GPUs = append(e.GPUs, e.GPUs[0]) },
			[]string{"gpu count: baseline 1, candidate 2"}, 0},
		{"no gpu", func(e *Environment) { e.GPUs = nil },
			[]string{"gpu model: baseline NVIDIA H200, candidate none", "gpu count: baseline 1, candidate 0"}, 3},
		{"driver and mig", func(e *Environment) { e.GPUs[0].Driver, e.GPUs[0].MIG = "560.1", "enabled" },
			[]string{"gpu driver: baseline 550.54, candidate 560.1", "mig mode: baseline disabled, candidate enabled"}, 0},
		{"cores", func(e *Environment) { e.Cores = 8 }, []string{"cpu cores: baseline 16, candidate 8"}, 0},
		// An unknown CUDA version cannot be checked: a warning, not a mismatch.
		{"cuda unknown", func(e *Environment) { e.GPUs[0].CUDA = "" }, nil, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := h200
			c.GPUs = append([]GPU{}, h200.GPUs...)
			tt.edit(&c)
			mism, unk := f.Diff(FingerprintOf(c))
			if d := cmp.Diff(tt.wantMism, mism); d != "" {
				t.Errorf("Diff mismatches (-want +got):\n%s", d)
			}
			if len(unk) != tt.wantUnknown {
				t.Errorf("Diff unknowns = %q, want %d", unk, tt.wantUnknown)
			}
		})
	}
}

// FuzzParse: the one decoder never panics, and what it accepts has the
// schema and survives a round trip through Write.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"schema": "perfgate.result/v1", "scenario": "a", "trials": []}`))
	f.Add([]byte(`{"schema": "perfgate.result/v1"} {}`))
	f.Add([]byte(`{"schema": "perfgate.result/v2"}`))
	f.Add([]byte(``))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Parse(data)
		if err != nil {
			return
		}
		if r.Schema != Schema {
			t.Fatalf("Parse accepted schema %q", r.Schema)
		}
		_ = r.Check()
		var b bytes.Buffer
		if err := r.Write(&b); err != nil {
			t.Fatal(err)
		}
		if _, err := Parse(b.Bytes()); err != nil {
			t.Fatalf("Parse(Write(Parse(data))) = %v", err)
		}
	})
}
