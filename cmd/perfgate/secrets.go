package main

import (
	"os"
	"strings"

	"github.com/perfgate/perfgate/targetproc"
)

// lockSecrets takes the process environment as it was at start, removes
// every variable targetproc.SensitiveEnv marks (the Action's INPUT_*
// github-token, the runner's ACTIONS_* OIDC pair, GITHUB_TOKEN, any
// *_TOKEN, *_SECRET, …) from perfgate's own environment, and closes the
// process to other processes of the same user (see closeProcess).
//
// It returns the environment as it was, for getenv and for targets (which
// get it scrubbed again, minus what env_passthrough lets through): the
// values live on only in this process's Go heap, which a non-dumpable
// process does not show.
//
// Why: a target runs as the same user as perfgate and can walk its
// ancestors' /proc/PID/environ. Scrubbing the target's own environment
// (targetproc.scrubEnv) does not help if the parent still shows the token.
// The warning, if any, says what could not be closed.
func lockSecrets() (environ []string, warning error) {
	environ = os.Environ()
	var secret []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if targetproc.SensitiveEnv(name) {
			secret = append(secret, name)
			os.Unsetenv(name)
		}
	}
	return environ, closeProcess(secret)
}

// envLookup returns a getenv over environ (later entries win, as in
// os.Environ's order there are none twice).
func envLookup(environ []string) func(string) string {
	m := make(map[string]string, len(environ))
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return func(k string) string { return m[k] }
}

// environ returns the environment targets start from: the one main took
// at start (secrets included, scrubbed again per target), or, in tests
// that build env themselves, the process's own.
func (e *env) environ() []string {
	if e.initialEnv != nil {
		return e.initialEnv
	}
	return os.Environ()
}
