package http1

import "bytes"

// Byte-level helpers for the response parser. They work on slices of the
// read buffer and never allocate.

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// trimOWS removes optional whitespace (spaces and tabs) at both ends.
func trimOWS(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// equalFold reports whether b equals lower, ignoring ASCII case; lower
// must be lower case.
func equalFold(b []byte, lower string) bool {
	if len(b) != len(lower) {
		return false
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// parseDecimal parses a non-negative decimal integer of at most 18 digits
// (so it cannot overflow), as Content-Length requires.
func parseDecimal(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if !isDigit(c) {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// parseChunkSize parses a chunk size line: hexadecimal digits, then
// optionally whitespace and ";extensions", which are ignored.
func parseChunkSize(line []byte) (int, bool) {
	n, i := 0, 0
	for ; i < len(line); i++ {
		c := line[i]
		var d byte
		switch {
		case '0' <= c && c <= '9':
			d = c - '0'
		case 'a' <= c && c <= 'f':
			d = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			d = c - 'A' + 10
		default:
			goto rest
		}
		n = n<<4 | int(d)
		if n > maxChunkSize {
			return 0, false
		}
	}
rest:
	if i == 0 {
		return 0, false
	}
	tail := trimOWS(line[i:])
	if len(tail) > 0 && tail[0] != ';' {
		return 0, false
	}
	return n, true
}

// hasToken reports whether the comma-separated list value contains token,
// ignoring case and whitespace around elements; token is lower case.
func hasToken(value []byte, token string) bool {
	for len(value) > 0 {
		elem := value
		if i := bytes.IndexByte(value, ','); i >= 0 {
			elem, value = value[:i], value[i+1:]
		} else {
			value = nil
		}
		if equalFold(trimOWS(elem), token) {
			return true
		}
	}
	return false
}

// lastToken reports whether the last element of the comma-separated list
// value is token (the final transfer coding decides the framing).
func lastToken(value []byte, token string) bool {
	if i := bytes.LastIndexByte(value, ','); i >= 0 {
		value = value[i+1:]
	}
	return equalFold(trimOWS(value), token)
}
