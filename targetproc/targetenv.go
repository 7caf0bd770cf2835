package targetproc

import (
	"slices"
	"strings"
)

// DefaultEnv lists the variables a target (and an A/B build) inherits from
// perfgate's environment without being named in env_passthrough: what a
// program needs to find itself, its libraries, its GPUs and its scratch
// space, and nothing that grants anything. A name ending in '*' is a
// prefix. Everything else is withheld: a deny-list by name pattern lets
// through every secret that does not look like one (GH_PAT, OPENAI_KEY,
// SSH_AUTH_SOCK), and the runner's command files (GITHUB_ENV, …) would let
// a target change later steps. docs/hardening.md lists the same names.
var DefaultEnv = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM",
	"LANG", "LANGUAGE", "LC_*", "TZ", "TMPDIR", "TMP", "TEMP", "HOSTNAME",
	"LD_LIBRARY_PATH",
	"CUDA_VISIBLE_DEVICES", "CUDA_HOME", "NVIDIA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES",
	"HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES",
	"XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME",
	"SSL_CERT_FILE", "SSL_CERT_DIR",
	"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "CONDA_PREFIX", "HF_HOME", "OMP_NUM_THREADS",
}

// NeverPassed lists the variables no target gets, even when
// env_passthrough names them: the Action's own token, and the runner's
// command files, through which a step sets the environment, PATH, outputs
// and state of the steps after it (a target could set BASH_ENV for them).
// Names are compared without case.
var NeverPassed = []string{
	"INPUT_GITHUB_TOKEN", "INPUT_GITHUB-TOKEN",
	"GITHUB_ENV", "GITHUB_OUTPUT", "GITHUB_PATH", "GITHUB_STATE", "GITHUB_STEP_SUMMARY",
}

// neverPassed reports whether name is in NeverPassed, without case.
func neverPassed(name string) bool {
	return slices.ContainsFunc(NeverPassed, func(n string) bool { return strings.EqualFold(n, name) })
}

// inheritedByDefault reports whether name is in DefaultEnv.
func inheritedByDefault(name string) bool {
	for _, d := range DefaultEnv {
		if p, ok := strings.CutSuffix(d, "*"); ok && strings.HasPrefix(name, p) || d == name {
			return true
		}
	}
	return false
}

// SensitiveEnv reports whether an environment variable's name marks it as
// a secret: the GitHub Action's inputs (INPUT_*, the token among them),
// the runner's ACTIONS_* runtime, cache and OIDC variables, GITHUB_TOKEN,
// and any name that looks like a token, a secret, a password or a key
// (AWS_SECRET_ACCESS_KEY, HF_TOKEN, DB_PASSWORD, OPENAI_API_KEY, …).
// Names are compared without case.
//
// perfgate removes these from its own process environment at start and
// hides them from other processes (cmd/perfgate's lockSecrets). What a
// target inherits is decided by an allow-list instead (InheritedEnv):
// a name pattern cannot know every secret.
func SensitiveEnv(name string) bool {
	n := strings.ToUpper(name)
	if strings.HasPrefix(n, "INPUT_") || strings.HasPrefix(n, "ACTIONS_") || n == "GITHUB_TOKEN" {
		return true
	}
	for _, w := range []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL",
		"API_KEY", "APIKEY", "ACCESS_KEY", "PRIVATE_KEY"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// InheritedEnv returns what a target inherits of base: the variables
// DefaultEnv lists and those named in keep (env_passthrough, exact
// names), never one NeverPassed lists; and the names it withheld, in
// base's order. Values are never looked at.
func InheritedEnv(base, keep []string) (env, withheld []string) {
	env = make([]string, 0, len(base))
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if neverPassed(name) || !inheritedByDefault(name) && !slices.Contains(keep, name) {
			withheld = append(withheld, name)
			continue
		}
		env = append(env, kv)
	}
	return env, withheld
}
