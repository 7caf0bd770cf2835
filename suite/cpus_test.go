package suite

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/internal/cpuset"
)

func TestPlanGenerator(t *testing.T) {
	host := cpuset.Set{0, 1}
	tests := []struct {
		name    string
		list    string
		host    cpuset.Set
		want    cpuset.Set
		whyPart string
	}{
		{"none asked", "", host, nil, ""},
		{"applied", "0", host, cpuset.Set{0}, ""},
		// A config written for a bigger runner still runs here, unpinned.
		{"host lacks the CPUs", "4-7", host, nil, "no 4-7"},
		{"not Linux", "0", nil, nil, "Linux only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			iso, err := PlanGenerator(tt.list, tt.host)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, iso.Generator); d != "" {
				t.Errorf("Generator (-want +got):\n%s", d)
			}
			got := strings.Join(iso.NotApplied, "; ")
			if (tt.whyPart == "") != (got == "") || !strings.Contains(got, tt.whyPart) {
				t.Errorf("NotApplied = %q, want it to say %q", got, tt.whyPart)
			}
		})
	}
	if _, err := PlanGenerator("zero", host); err == nil {
		t.Error("PlanGenerator(\"zero\") succeeded, want an error naming generator_cpus")
	}
}

func TestTargetCPUs(t *testing.T) {
	pinned := &CPUIsolation{Host: cpuset.Set{0, 1, 2, 3}, Generator: cpuset.Set{0}}
	unpinned := &CPUIsolation{Host: cpuset.Set{0, 1}}
	tests := []struct {
		name    string
		cpus    string
		iso     *CPUIsolation
		want    cpuset.Set
		whyPart string
	}{
		{"own set", "2-3", pinned, cpuset.Set{2, 3}, ""},
		// Without cpus, a target of a pinned perfgate gets the host's
		// CPUs back, not the generator's it would inherit.
		{"none, generator pinned", "", pinned, cpuset.Set{0, 1, 2, 3}, ""},
		{"none, unpinned", "", unpinned, nil, ""},
		{"host lacks the CPUs", "2-3", unpinned, nil, "no 2-3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, why := targetCPUs(&config.Target{Name: "server", CPUs: tt.cpus}, tt.iso)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("targetCPUs (-want +got):\n%s", d)
			}
			if (tt.whyPart == "") != (why == "") || !strings.Contains(why, tt.whyPart) {
				t.Errorf("why = %q, want it to say %q", why, tt.whyPart)
			}
		})
	}
}
