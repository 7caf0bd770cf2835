package targetproc

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// A target that is never ready often listens, but on a port of its own
// choosing (a default such as 8080) rather than the one perfgate gave it
// in {port}; its log usually says where. portHint reads the log for that
// and says how to fix the config.

// listenWords are the words of a log line that announces where a server
// listens. Only such lines are read, so that an address the service
// connects to (its database, a peer) is not taken for its own.
var listenWords = regexp.MustCompile(`(?i)listen|serving|serves|server|started|running|bound|\bbind|ready|accepting`)

// logPorts are the ways a log line names a port: an address ending in
// :PORT (":8080", "127.0.0.1:8080", "localhost:8080", "[::]:8080",
// "http://0.0.0.0:8080"), or "port 8080" / "port=8080". An address must
// begin the line or follow a character that cannot be part of a time of
// day, so that "12:34:56" names no port.
var logPorts = []*regexp.Regexp{
	regexp.MustCompile(`(?:^|[^\w.:])(?:localhost|\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-fA-F:.]*\]|\*)?:(\d{2,5})\b`),
	regexp.MustCompile(`(?i)\bport\b["']?\s*[=:]?\s*(\d{2,5})\b`),
}

// portHint returns, for a target that was not ready on port (and
// grpcPort, when set), a sentence saying that its log names another port
// it seems to listen on and how to pass {port} in command; "" when the
// log names no other port, or names the one perfgate gave.
func portHint(name, logTail string, port, grpcPort int, command []string) string {
	other, line := 0, ""
	for _, l := range strings.Split(logTail, "\n") {
		if !listenWords.MatchString(l) {
			continue
		}
		for _, re := range logPorts {
			for _, m := range re.FindAllStringSubmatch(l, -1) {
				p, err := strconv.Atoi(m[1])
				if err != nil || p <= 0 || p > 65535 {
					continue
				}
				if p == port || (grpcPort > 0 && p == grpcPort) {
					return "" // it did listen where it was told
				}
				other, line = p, strings.TrimSpace(l)
			}
		}
	}
	if other == 0 {
		return ""
	}
	hint := fmt.Sprintf("\ntarget %q seems to listen on port %d (its log: %q), not on port %d, the one perfgate gave it as {port}: ",
		name, other, line, port)
	lit := strconv.Itoa(other)
	var fixed []string
	for _, a := range command {
		if strings.Contains(a, lit) && !strings.Contains(a, "{port}") {
			fixed = append(fixed, strings.ReplaceAll(a, lit, "{port}"))
		} else {
			fixed = append(fixed, a)
		}
	}
	switch {
	case strings.Contains(strings.Join(command, " "), lit):
		return hint + fmt.Sprintf("pass {port} in the target's command instead of %d:\n  command: %s", other, argv(fixed))
	case strings.Contains(strings.Join(command, " "), "{port}"):
		return hint + fmt.Sprintf("its command passes {port} (command: %s), but the service did not take it: check the flag or variable that sets its port", argv(command))
	}
	return hint + fmt.Sprintf("pass {port} in the target's command, as the flag or variable that sets the service's port, for example:\n  command: %s\n  (or env: {PORT: \"{port}\"} if the service reads its port from the environment)",
		argv(append(append([]string{}, command...), "--port", "{port}")))
}

// argv writes a command as a YAML flow list, each argument quoted.
func argv(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = strconv.Quote(a)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
