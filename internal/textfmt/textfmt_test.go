package textfmt

import "testing"

func TestNumbers(t *testing.T) {
	tests := []struct{ name, got, want string }{
		{"money", Money(10950), "$10,950.00"},
		{"money cents", Money(2.5), "$2.50"},
		{"money negative", Money(-5475), "-$5,475.00"},
		{"signed money", SignedMoney(5475), "+$5,475.00"},
		{"signed money negative", SignedMoney(-1), "-$1.00"},
		{"signed money zero", SignedMoney(-0.001), "±$0.00"},
		{"signed int", SignedInt(3), "+3"},
		{"signed int negative", SignedInt(-2), "-2"},
		{"signed int zero", SignedInt(0), "±0"},
		{"signed", Signed(-22.04, 1), "-22.0"},
		{"signed zero", Signed(0.01, 1), "±0.0"},
		{"thousands", Thousands(1234567.891, 1), "1,234,567.9"},
		{"num", Num(1234.5), "1234.5"},
		{"num rounded", Num(8.0349), "8.03"},
		{"num whole", Num(6.0001), "6"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}

func TestMarkdown(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a`b", "a\\`b"},
		{"[x](y)", "\\[x\\]\\(y\\)"},
		{"@team", "@\u200dteam"},
		{"#12", "\\#\u200d12"},
		{"<b>", "&lt;b&gt;"},
		{"a\nb", "a b"},
		// GitHub references: GH-N, issue URLs (autolinked, then
		// cross-referenced), www. addresses.
		{"GH-12", "GH-\u200d12"},
		{"see gh-7", "see gh-\u200d7"},
		{"https://github.com/o/r/issues/3", "https:\u200d//github.com/o/r/issues/3"},
		{"http://x/pull/4", "http:\u200d//x/pull/4"},
		{"www.github.com/o/r/issues/5", "www\u200d.github.com/o/r/issues/5"},
		{"o/r#6", "o/r\\#\u200d6"},
	}
	for _, tt := range tests {
		if got := Markdown(tt.in); got != tt.want {
			t.Errorf("Markdown(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
