package main

import (
	"bytes"
	"strings"
	"testing"
	"unicode"
)

// runnerCommands returns the lines of out that the GitHub Actions runner
// would take as workflow commands, by its rules (actions/runner,
// src/Runner.Common/ActionCommand.cs, and the step's output read with
// .NET's StreamReader.ReadLine):
//
//   - lines end at "\n", "\r" or "\r\n";
//   - TryParseV2: line.TrimStart() (char.IsWhiteSpace, which is Go's
//     unicode.IsSpace) then StartsWith("::");
//   - TryParse (legacy): IndexOf("##[") anywhere in the line;
//   - both comparisons are culture-sensitive, so under ICU the runes of
//     zero weight (format characters, controls, combining marks) do not
//     count: the model also tries each line with them removed.
//
// It is written apart from the guard, so that a mistake in one is not
// copied into the other.
func runnerCommands(out string) []string {
	var cmds []string
	lines := strings.FieldsFunc(out, func(r rune) bool { return r == '\n' || r == '\r' })
	for _, line := range lines {
		icu := strings.Map(func(r rune) rune {
			if unicode.In(r, unicode.Cf, unicode.Mn, unicode.Me) || (unicode.Is(unicode.Cc, r) && !unicode.IsSpace(r)) {
				return -1
			}
			return r
		}, line)
		for _, l := range []string{line, icu} {
			if strings.HasPrefix(strings.TrimLeftFunc(l, unicode.IsSpace), "::") || strings.Contains(l, "##[") {
				cmds = append(cmds, line)
				break
			}
		}
	}
	return cmds
}

// TestCmdGuard writes each attack (all of them lines the runner would
// obey, checked first) through the guard, whole and a byte at a time, and
// checks that the runner would obey none of the output and that only the
// guard's marks were added.
func TestCmdGuard(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
	}{
		{"command at a line start", []string{"x\n::warning::pwned\n"}},
		{"after blanks", []string{"  \t::error::x\n"}},
		// The runner reads lines, not writes: a command split across
		// writes is still a command.
		{"split across writes", []string{"a\n", ":", ":add-mask::x\n"}},
		// ReadLine ends a line at a bare "\r" too (issue 28: "c\r::error").
		{"bare carriage return", []string{"c\r::error title=x::pwned\n"}},
		{"carriage return line feed", []string{"c\r\n::error::pwned\r\n"}},
		{"carriage return at the start", []string{"\r::stop-commands::t\n"}},
		// TrimStart removes every char.IsWhiteSpace rune.
		{"NBSP", []string{"b\n\u00a0::warning file=x::pwned\n"}},
		{"em space", []string{"\u2003::set-output name=verdict::pass\n"}},
		{"ideographic space", []string{"\u3000::add-mask::x\n"}},
		{"line separator", []string{"\u2028::notice::x\n"}},
		{"next line", []string{"\u0085::notice::x\n"}},
		{"vertical tab and form feed", []string{"\v\f::notice::x\n"}},
		// ICU's culture-sensitive StartsWith skips zero-width runes.
		{"zero-width space", []string{"\u200b::warning::x\n"}},
		{"between the colons", []string{":\u200d:warning::x\n"}},
		{"byte order mark", []string{"\ufeff::error::x\n"}},
		// The legacy form counts anywhere in a line (issue 28:
		// "a\n##[add-mask]perfgate").
		{"legacy at the start", []string{"a\n##[add-mask]perfgate\n"}},
		{"legacy inside a line", []string{"scenario x: ##[set-output name=verdict;]pass\n"}},
		{"legacy twice", []string{"##[group]a ##[endgroup]\n"}},
		{"legacy split across writes", []string{"x #", "#", "[add-mask]y\n"}},
		{"legacy with a zero-width joiner", []string{"#\u200d#[add-mask]y\n"}},
		{"no final newline", []string{"::error::x"}},
	}
	for _, tt := range tests {
		in := strings.Join(tt.writes, "")
		if len(runnerCommands(in)) == 0 {
			t.Errorf("%s: the runner model takes no command from %q: the row tests nothing", tt.name, in)
		}
		for _, split := range []string{"as written", "byte by byte"} {
			t.Run(tt.name+"/"+split, func(t *testing.T) {
				writes := tt.writes
				if split == "byte by byte" {
					writes = nil
					for i := range len(in) {
						writes = append(writes, in[i:i+1])
					}
				}
				var b bytes.Buffer
				g := guardCommands(&b)
				for _, w := range writes {
					if n, err := g.Write([]byte(w)); n != len(w) || err != nil {
						t.Fatalf("Write(%q) = %d, %v", w, n, err)
					}
				}
				flushGuard(g)
				got := b.String()
				if cmds := runnerCommands(got); len(cmds) > 0 {
					t.Errorf("guarded output %q still holds commands %q", got, cmds)
				}
				want := in
				if !strings.HasSuffix(want, "\n") && !strings.HasSuffix(want, "\r") {
					want += "\n" // flushGuard ends the last line
				}
				if text := strings.ReplaceAll(strings.ReplaceAll(got, cmdDefuse, ""), cmdBreak, ""); text != want {
					t.Errorf("guarded output %q, without the marks %q, want the input %q", got, text, want)
				}
			})
		}
	}
}

// Plain text passes unchanged: the guard marks only what the runner would
// obey (and lines it cannot yet tell apart when cut by the line cap).
func TestCmdGuardPlainText(t *testing.T) {
	for _, in := range []string{
		"scenario a: wrote a.json\n",
		":x\n",       // one colon
		"p99 ::x\n",  // colons inside a line
		"## [x]\n",   // not "##["
		"#1 #[2]\n",  // nor this
		"café ü\n",   // text with combining-free accents
		"a\u00a0b\n", // NBSP inside a line
	} {
		var b bytes.Buffer
		g := guardCommands(&b)
		g.Write([]byte(in))
		if got := b.String(); got != in {
			t.Errorf("guarded %q = %q, want it unchanged", in, got)
		}
	}
}

// A line longer than the guard holds is written in pieces; a command
// hidden behind a long run of blanks is still defused.
func TestCmdGuardLongLine(t *testing.T) {
	for _, in := range []string{
		strings.Repeat(" ", maxGuardLine+10) + "::error::x\n",
		strings.Repeat("a", maxGuardLine-1) + "##[add-mask]x\n",
	} {
		var b bytes.Buffer
		g := guardCommands(&b)
		for i := 0; i < len(in); i += 1000 {
			g.Write([]byte(in[i:min(i+1000, len(in))]))
		}
		if cmds := runnerCommands(b.String()); len(cmds) > 0 {
			t.Errorf("a %d-byte line kept a command", len(in))
		}
		if b.Len() < len(in) {
			t.Errorf("guarded output has %d bytes, want at least %d", b.Len(), len(in))
		}
	}
}
