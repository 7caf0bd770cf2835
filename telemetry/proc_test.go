package telemetry

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseStat(t *testing.T) {
	tests := []struct {
		name    string
		line    string
		want    procStat
		wantErr bool
	}{
		{
			name: "plain",
			line: "4242 (python3) R 1 4242 4242 0 -1 4194304 1234 0 0 0 850 150 0 0 20 0 9 0 777 0 0",
			want: procStat{pgrp: 4242, ticks: 1000, startTime: 777},
		},
		{
			// The command name may hold spaces and parentheses.
			name: "odd command name",
			line: "17 (tritonserver (x) 1) S 1 99 99 0 -1 0 0 0 0 0 3 4 10 10 20 0 1 0 55 0 0",
			want: procStat{pgrp: 99, ticks: 7, startTime: 55},
		},
		{name: "truncated", line: "17 (sh) S 1 99 99", wantErr: true},
		{name: "no name", line: "17 sh S 1 99", wantErr: true},
		{name: "bad pgrp", line: "1 (a) S 1 x 1 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 5 0 0", wantErr: true},
		{name: "bad utime", line: "1 (a) S 1 1 1 0 -1 0 0 0 0 0 y 1 0 0 20 0 1 0 5 0 0", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseStat([]byte(tt.line))
			if (err != nil) != tt.wantErr {
				t.Fatalf("parseStat(%q) error = %v, wantErr %v", tt.line, err, tt.wantErr)
			}
			if err == nil {
				if d := cmp.Diff(tt.want, got, cmp.AllowUnexported(procStat{})); d != "" {
					t.Errorf("parseStat(%q) (-want +got):\n%s", tt.line, d)
				}
			}
		})
	}
}

// FuzzParseStat checks that no stat line panics the parser and that the
// command name never shifts the fields.
func FuzzParseStat(f *testing.F) {
	f.Add([]byte("4242 (python3) R 1 4242 4242 0 -1 4194304 1234 0 0 0 850 150 0 0 20 0 9 0 777 0 0"), []byte("a) b ("))
	f.Fuzz(func(t *testing.T, line, name []byte) {
		parseStat(line)
		clean := []byte("1 (" + string(name) + ") S 1 7 7 0 -1 0 0 0 0 0 2 3 0 0 20 0 1 0 9 0 0")
		got, err := parseStat(clean)
		if err != nil {
			t.Fatalf("parseStat(%q): %v", clean, err)
		}
		if got != (procStat{pgrp: 7, ticks: 5, startTime: 9}) {
			t.Errorf("parseStat(%q) = %+v, want pgrp 7, ticks 5, start 9", clean, got)
		}
	})
}
