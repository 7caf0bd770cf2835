package cpuset

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Set
		str  string
	}{
		{"one", "1", Set{1}, "1"},
		{"range", "2-3", Set{2, 3}, "2-3"},
		{"mixed", "0,4-7", Set{0, 4, 5, 6, 7}, "0,4-7"},
		// Overlaps and disorder are the user's to write: the set is the union.
		{"unsorted overlapping", "5, 3-5,0", Set{0, 3, 4, 5}, "0,3-5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.in)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.in, err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("Parse(%q) (-want +got):\n%s", tt.in, d)
			}
			if s := got.String(); s != tt.str {
				t.Errorf("String() = %q, want %q", s, tt.str)
			}
		})
	}
	for _, bad := range []string{"", "a", "3-1", "-1", "1,", "1024", "0-2000"} {
		if got, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) = %v, want an error", bad, got)
		}
	}
}

func TestSetOverlapMissing(t *testing.T) {
	a, b := Set{0, 1, 2}, Set{2, 3}
	if d := cmp.Diff(Set{2}, a.Overlap(b)); d != "" {
		t.Errorf("Overlap (-want +got):\n%s", d)
	}
	if d := cmp.Diff(Set{0, 1}, a.Missing(b)); d != "" {
		t.Errorf("Missing (-want +got):\n%s", d)
	}
	if got := a.Overlap(Set{5}); got != nil {
		t.Errorf("Overlap of disjoint sets = %v, want none", got)
	}
}
