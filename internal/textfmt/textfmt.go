// Package textfmt is the one set of number and escaping helpers of
// perfgate: package report renders every document with them, and package
// sizing writes the numbers inside its data (a plan's formula and
// warnings) with Num, so that one report never shows one number two ways:
// negative numbers with an ASCII '-', money with cents and thousands
// separators, percentage points as " pp", plain figures with at most two
// decimals, untrusted names escaped for markdown.
package textfmt

import (
	"math"
	"strconv"
	"strings"
	"unicode"
)

// Points is the unit of a change in percentage points.
const Points = " pp"

// Thousands formats v with dec decimals and commas between thousands:
// 10950.5 with 2 is "10,950.50"; a negative v starts with '-'.
func Thousands(v float64, dec int) string {
	s := strconv.FormatFloat(math.Abs(v), 'f', dec, 64)
	intPart, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	if v < 0 && s != strconv.FormatFloat(0, 'f', dec, 64) {
		b.WriteByte('-')
	}
	for i, r := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if frac != "" {
		b.WriteString("." + frac)
	}
	return b.String()
}

// Num formats x with as few decimals as it needs, at most two: 1234.5,
// 6, 0.33. It is the figure in a sizing formula ("ceil(5000 × 1.3 /
// 1234.5)") and wherever a report quotes one.
func Num(x float64) string {
	return strconv.FormatFloat(math.Round(x*100)/100, 'f', -1, 64)
}

// Money formats dollars with cents: $10,950.00, -$5.25.
func Money(v float64) string {
	s := Thousands(v, 2)
	if strings.HasPrefix(s, "-") {
		return "-$" + s[1:]
	}
	return "$" + s
}

// SignedMoney is Money with an explicit sign: +$5.00, -$5.00, ±$0.00.
func SignedMoney(v float64) string {
	switch s := Money(v); {
	case s == "$0.00" || s == "-$0.00":
		return "±$0.00"
	case v > 0:
		return "+" + s
	default:
		return s
	}
}

// SignedInt formats an integer change: +3, -2, ±0.
func SignedInt(n int) string {
	switch {
	case n == 0:
		return "±0"
	case n > 0:
		return "+" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

// Signed formats x with dec decimals and an explicit sign: +1.5, -1.5,
// ±0.0.
func Signed(x float64, dec int) string {
	s := strconv.FormatFloat(math.Abs(x), 'f', dec, 64)
	switch {
	case s == strconv.FormatFloat(0, 'f', dec, 64):
		return "±" + s
	case x > 0:
		return "+" + s
	}
	return "-" + s
}

// zwj is the zero-width joiner Markdown puts after '@' and '#'.
const zwj = "\u200d"

// Markdown makes an untrusted string (a name from perfgate.yaml) inert in
// GitHub-flavoured markdown, table cells included: HTML metacharacters
// become entities, markdown punctuation (backticks and brackets among it)
// is backslash-escaped, '@' and '#' are followed by a zero-width joiner so
// that GitHub neither mentions anyone (@team) nor links an issue (#123,
// owner/repo#123) — GitHub still mentions after "&#64;" and links after
// "\#" — and line breaks and control characters become spaces.
//
// GitHub makes references of more than '#': "GH-12" links issue 12, and a
// URL (https://github.com/o/r/issues/12, or any www. address, which GFM
// autolinks) becomes a link that cross-references the issue it names. A
// zero-width joiner goes after "GH-" (any case), after the ':' of "://"
// and after "www", so none of them is recognised, and the text reads the
// same.
func Markdown(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == '-' && i >= 2 && strings.EqualFold(s[i-2:i], "gh"):
			b.WriteString("-" + zwj)
			continue
		case r == ':' && strings.HasPrefix(s[i+1:], "//"):
			b.WriteString(":" + zwj)
			continue
		case r == '.' && i >= 3 && strings.EqualFold(s[i-3:i], "www"):
			b.WriteString(zwj + ".")
			continue
		}
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '"':
			b.WriteString("&quot;")
		case '@':
			b.WriteString("@" + zwj)
		case '#':
			b.WriteString("\\#" + zwj)
		case '|', '\\', '`', '*', '_', '[', ']', '(', ')', '~', '!', '$':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
				b.WriteByte(' ')
				continue
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}
