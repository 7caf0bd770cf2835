package procfs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The lines are captured from /proc/PID/stat, trimmed after field 22.
func TestParseStat(t *testing.T) {
	tests := []struct {
		name    string
		line    string
		want    Stat
		wantErr bool
	}{
		{
			name: "plain",
			line: "4242 (python3) R 1 4242 4242 0 -1 4194304 1234 0 0 0 850 150 0 0 20 0 9 0 777 0 0",
			want: Stat{PPID: 1, PGrp: 4242, Ticks: 1000, StartTime: 777},
		},
		{
			// The command name may hold spaces and parentheses.
			name: "odd command name",
			line: "17 (tritonserver (x) 1) S 1 99 99 0 -1 0 0 0 0 0 3 4 10 10 20 0 1 0 55 0 0",
			want: Stat{PPID: 1, PGrp: 99, Ticks: 7, StartTime: 55},
		},
		{
			// A name that looks like the fields after it: only the last
			// ')' ends it.
			name: "name holding a stat line",
			line: "8 (a) R 1 5 5 0 -1 0 0 0 0 0 9 9 0 0 20 0 1 0 1) S 1 3 3 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 4 0 0",
			want: Stat{PPID: 1, PGrp: 3, Ticks: 3, StartTime: 4},
		},
		{name: "truncated", line: "17 (sh) S 1 99 99", wantErr: true},
		{name: "no name", line: "17 sh S 1 99", wantErr: true},
		{name: "bad ppid", line: "1 (a) S z 1 1 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 5 0 0", wantErr: true},
		{name: "bad pgrp", line: "1 (a) S 1 x 1 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 5 0 0", wantErr: true},
		{name: "bad utime", line: "1 (a) S 1 1 1 0 -1 0 0 0 0 0 y 1 0 0 20 0 1 0 5 0 0", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseStat([]byte(tt.line))
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseStat(%q) error = %v, wantErr %v", tt.line, err, tt.wantErr)
			}
			if err == nil {
				if d := cmp.Diff(tt.want, got); d != "" {
					t.Errorf("ParseStat(%q) (-want +got):\n%s", tt.line, d)
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
		ParseStat(line)
		clean := []byte("1 (" + string(name) + ") S 1 7 7 0 -1 0 0 0 0 0 2 3 0 0 20 0 1 0 9 0 0")
		got, err := ParseStat(clean)
		if err != nil {
			t.Fatalf("ParseStat(%q): %v", clean, err)
		}
		if got != (Stat{PPID: 1, PGrp: 7, Ticks: 5, StartTime: 9}) {
			t.Errorf("ParseStat(%q) = %+v, want ppid 1, pgrp 7, ticks 5, start 9", clean, got)
		}
	})
}

func TestParseCPUTimes(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		want   CPUTimes
		wantOK bool
	}{
		{"aggregate line", "cpu  100 5 50 800 20 3 2 10 0 0\ncpu0 1 2 3\n", CPUTimes{Busy: 170, Steal: 10, Total: 990}, true},
		{"no cpu line", "intr 1 2 3\n", CPUTimes{}, false},
		// Kernels before 2.6.11 had no steal column: too few to trust.
		{"short line", "cpu 1 2 3 4 5 6 7\n", CPUTimes{}, false},
		{"not a number", "cpu 1 2 x 4 5 6 7 8\n", CPUTimes{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ParseCPUTimes([]byte(tt.in))
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("ParseCPUTimes(%q) = %+v, %v; want %+v, %v", tt.in, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

// Group reads a captured tree: the group's processes, with
// the others, non-PID entries and unreadable ones skipped; a malformed
// stat line is an error naming its file.
func TestGroup(t *testing.T) {
	root := t.TempDir()
	write := func(name, body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(root, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if body != "" {
			if err := os.WriteFile(filepath.Join(root, name, "stat"), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	write("10", "10 (server) S 1 10 10 0 -1 0 0 0 0 0 40 2 0 0 20 0 4 0 100 0 0\n")
	write("11", "11 (worker (py) 2) R 10 10 10 0 -1 0 0 0 0 0 5 5 0 0 20 0 1 0 120 0 0\n")
	write("12", "12 (other) S 1 12 12 0 -1 0 0 0 0 0 7 7 0 0 20 0 1 0 130 0 0\n")
	write("13", "")   // exited while read: no stat
	write("self", "") // not a PID
	got, err := Group(root, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []Proc{{PID: 10, Stat: Stat{PPID: 1, PGrp: 10, Ticks: 42, StartTime: 100}}, {PID: 11, Stat: Stat{PPID: 10, PGrp: 10, Ticks: 10, StartTime: 120}}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Group(root, 10) (-want +got):\n%s", d)
	}
	write("14", "14 (broken) S 1\n")
	if _, err := Group(root, 10); err == nil || !strings.Contains(err.Error(), filepath.Join(root, "14", "stat")) {
		t.Errorf("Group with a malformed line = %v, want an error naming %s", err, filepath.Join(root, "14", "stat"))
	}
	if _, err := Group(filepath.Join(root, "absent"), 1); err == nil {
		t.Error("Group(absent root) = nil error, want one")
	}
	if s, err := ReadStat(root, 12); err != nil || s.Ticks != 14 {
		t.Errorf("ReadStat(root, 12) = %+v, %v; want 14 ticks", s, err)
	}
}
