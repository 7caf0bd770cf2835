package result

import (
	"strings"
	"testing"
)

// Check names the field whose length or values are wrong; offered is
// optional, and checked only where present.
func TestPerSecondCheck(t *testing.T) {
	ok := func() *PerSecond {
		return &PerSecond{Achieved: []int64{3, 1}, Errors: []int64{0, 0}, P99Ms: []float64{5, 6}}
	}
	withOffered := ok()
	withOffered.Offered = []int64{3, 2}
	short := ok()
	short.Offered = []int64{3}
	negative := ok()
	negative.Offered = []int64{3, -1}
	unequal := ok()
	unequal.P99Ms = unequal.P99Ms[:1]
	for _, tt := range []struct {
		name string
		p    *PerSecond
		want string // "" for no error
	}{
		{"no offered (results before it)", ok(), ""},
		{"offered", withOffered, ""},
		{"nil", nil, ""},
		{"offered short", short, "offered has 1 entries where achieved has 2"},
		{"offered negative", negative, "second 1 has a negative value"},
		{"arrays unequal", unequal, "achieved, errors and p99_ms have 2, 2 and 1 entries"},
	} {
		err := tt.p.Check()
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v, want no error", tt.name, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: %v, want an error saying %q", tt.name, err, tt.want)
		}
	}
}
