package targetproc

import (
	"slices"
	"strings"
)

// SensitiveEnv reports whether an environment variable's name marks it as
// a secret a target must not inherit by default: the GitHub Action's
// inputs (INPUT_*, the token among them), the runner's ACTIONS_* runtime,
// cache and OIDC variables, GITHUB_TOKEN, and any name that looks like a
// token, a secret, a password or a key (AWS_SECRET_ACCESS_KEY, HF_TOKEN,
// DB_PASSWORD, OPENAI_API_KEY, …). Names are compared without case.
//
// A target that logs its environment would otherwise write these into its
// log, which perfgate keeps beside the results and CI uploads as an
// artifact, where log masking does not reach.
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

// scrubEnv returns base without the variables SensitiveEnv marks, except
// those named in keep, and the names it withheld, in base's order.
func scrubEnv(base, keep []string) (env, withheld []string) {
	env = make([]string, 0, len(base))
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if SensitiveEnv(name) && !slices.Contains(keep, name) {
			withheld = append(withheld, name)
			continue
		}
		env = append(env, kv)
	}
	return env, withheld
}
