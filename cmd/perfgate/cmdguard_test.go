package main

import (
	"bytes"
	"testing"
)

func TestCmdGuard(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
		want   string
	}{
		{"plain text", []string{"scenario a: wrote a.json\n"}, "scenario a: wrote a.json\n"},
		{"command at a line start", []string{"x\n::warning::pwned\n"}, "x\n· ::warning::pwned\n"},
		{"after blanks", []string{"  \t::error::x\n"}, "·   \t::error::x\n"},
		// The runner reads lines, not writes: a command split across
		// writes is still a command.
		{"split across writes", []string{"a\n", ":", ":add-mask::x\n"}, "a\n· ::add-mask::x\n"},
		{"one colon is text", []string{":x\n"}, ":x\n"},
		{"colons inside a line", []string{"p99 ::x\n"}, "p99 ::x\n"},
		{"carriage return", []string{"\r::stop-commands::t\n"}, "· \r::stop-commands::t\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			g := guardCommands(&b)
			for _, w := range tt.writes {
				if n, err := g.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", w, n, err)
				}
			}
			if got := b.String(); got != tt.want {
				t.Errorf("guarded output = %q, want %q", got, tt.want)
			}
		})
	}
}
