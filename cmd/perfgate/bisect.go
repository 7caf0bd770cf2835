package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/perfgate/perfgate/ab"
	"github.com/perfgate/perfgate/bisect"
	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/gate"
	"github.com/perfgate/perfgate/report"
)

// cmdBisect is `perfgate bisect --good A --bad B`: the commit that caused
// a change, each step a same-runner A/B (package bisect).
func cmdBisect(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("bisect", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	setUsage(fs, "bisect")
	var (
		good      = fs.String("good", "", "a commit measured before the change (required)")
		bad       = fs.String("bad", "HEAD", "a commit measured after the change")
		cfgPath   = fs.String("config", config.DefaultFile, "perfgate.yaml (each commit's own is read at that path)")
		out       = fs.String("out", filepath.Join(defaultOutDir, "bisect"), "`folder` for each step's results and logs, and bisect.json")
		format    = fs.String("format", "text", "output: text or json")
		allowEnv  = fs.Bool("allow-env-mismatch", false, "compare across hardware (warns)")
		scenarios stringList
	)
	fs.Var(&scenarios, "scenario", "bisect on this scenario only (repeatable; default all)")
	if err := fs.Parse(args); err != nil {
		return usageErr("bisect: %v", err)
	}
	if *good == "" {
		return usageErr("bisect: --good is required: a commit measured before the change")
	}
	if *format != "text" && *format != "json" {
		return usageErr("bisect: --format %q: want text or json", *format)
	}
	cfgAbs := absPath(e, *cfgPath)
	repo, err := ab.OpenRepo(ctx, filepath.Dir(cfgAbs))
	if err != nil {
		return usageErr("bisect: %v", err)
	}
	if d, err := filepath.EvalSymlinks(cfgAbs); err == nil {
		cfgAbs = d
	}
	rel, err := filepath.Rel(repo.Root, cfgAbs)
	if err != nil || strings.HasPrefix(rel, "..") {
		return usageErr("bisect: --config %s is outside the repository %s", *cfgPath, repo.Root)
	}
	commits, err := bisect.Commits(ctx, repo.Root, *good, *bad)
	if err != nil {
		return usageErr("bisect: %v", err)
	}
	outDir := absPath(e, *out)
	prog := newProgress(e)
	m := &bisect.AB{Repo: repo.Root, Config: rel, OutDir: outDir,
		Settings: func(c *config.Config) compare.Settings { return gate.Settings(c, *allowEnv) },
		Suite:    e.suiteOptions(nil, "", nil, nil)}
	m.Suite.Scenarios, m.Suite.Log = scenarios, prog
	fmt.Fprintf(e.stderr, "perfgate bisect: %d commits after %s; about %d A/B steps\n", len(commits)-1, *good, bits(len(commits)-1)+2)
	res, err := bisect.Run(ctx, commits, m, scenarios)
	prog.close()
	if err != nil {
		if errors.Is(err, ab.ErrBadRef) || errors.Is(err, ab.ErrRefused) {
			return usageErr("bisect: %v", err)
		}
		return withCode(exitRunFailed, fmt.Errorf("bisect: %w", err))
	}
	if err := os.MkdirAll(outDir, 0o755); err == nil {
		if b, err := json.MarshalIndent(res, "", "  "); err == nil {
			_ = os.WriteFile(filepath.Join(outDir, "bisect.json"), append(b, '\n'), 0o644)
		}
	}
	if *format == "json" {
		return writeJSON(e, res)
	}
	return report.BisectText(e.stdout, res)
}

// bits is ⌈log2 n⌉.
func bits(n int) int {
	b := 0
	for (1 << b) < n {
		b++
	}
	return b
}
