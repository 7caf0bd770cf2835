package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/perfgate/perfgate/baselines"
	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/gate"
	"github.com/perfgate/perfgate/internal/capread"
	"github.com/perfgate/perfgate/result"
)

// cmdBaseline implements perfgate baseline update: it stores a run's
// results as the new baselines, replacing only the scenarios measured.
// A failed, invalid or interrupted run writes nothing (exit 3). Its usage
// is synopses()' "baseline".
//
// With several --from folders (independent runs of the same config), each
// scenario's baseline holds all runs' trials and their noise floor.
func cmdBaseline(ctx context.Context, e *env, args []string) error {
	if len(args) > 0 && isHelpArg(args[0]) {
		fmt.Fprint(e.stdout, commandUsage("baseline"))
		return nil
	}
	if len(args) == 0 || args[0] != "update" {
		return usageErr("baseline: want the subcommand \"update\": perfgate baseline update --from DIR --to DIR [--tag T]")
	}
	fs := flag.NewFlagSet("baseline update", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	var (
		froms stringList
		to    = fs.String("to", "", "baseline `DIR` to update")
		tag   = fs.String("tag", "", "release tag recorded in the provenance")
		sha   = fs.String("git-sha", "", "git commit recorded in the provenance (default: the result's, or $GITHUB_SHA)")
		cfg   = fs.String("config", "", "configuration `FILE` whose hash is recorded in the provenance")
		hist  = fs.String("history", "", "also append the stored baselines to the history folder `DIR` (docs/history.md)")
		force = fs.Bool("force", false, "store several --from runs even when they disagree beyond their noise")
	)
	fs.Var(&froms, "from", "`DIR` holding a run's result files (perfgate run --out DIR); repeat it with independent runs of the same config to store their noise floor")
	setUsage(fs, "baseline")
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return usageErr("baseline update: %v", err)
	}
	if fs.NArg() > 0 {
		return usageErr("baseline update: unexpected argument %q", fs.Arg(0))
	}
	if len(froms) == 0 || *to == "" {
		return usageErr("baseline update: --from and --to are both required")
	}
	var dirs []string
	for _, f := range froms {
		d, err := resultsPath("--from", absPath(e, f))
		if err != nil {
			return usageErr("baseline update: %v", err)
		}
		dirs = append(dirs, d)
	}
	cfgPath := *cfg
	if cfgPath != "" {
		cfgPath = absPath(e, cfgPath)
	}
	prov, err := storedProvenance(e, cfgPath)
	if err != nil {
		return usageErr("baseline update: --config: %v", err)
	}
	if *tag != "" {
		prov.Tag = *tag
	}
	if *sha != "" {
		prov.GitSHA = *sha
	}
	// Runs that would fail each other's gate are not one baseline: exit 2
	// naming them, unless --force.
	if len(dirs) > 1 {
		settings := compare.DefaultSettings()
		if cfgPath != "" {
			c, err := config.ReadFile(cfgPath)
			if err != nil {
				return withCode(exitUsage, fmt.Errorf("baseline update: %w", err))
			}
			settings = gate.Settings(c, false)
		}
		ds, err := baselines.CheckRuns(dirs, settings)
		if err != nil {
			return err
		}
		if len(ds) > 0 {
			derr := baselines.DisagreeError(ds)
			if !*force {
				return withCode(exitUsage, fmt.Errorf("baseline update: %w: nothing written; measure again on a quieter runner (the gate would compare against a level neither run measured), or store them anyway with --force", derr))
			}
			fmt.Fprintf(e.stderr, "baseline update: storing anyway (--force): %v\n", derr)
		}
	}
	// Independent runs: their disagreement is the noise floor, stored
	// with the combined trials (gate.StoreRuns, as the Action's baseline
	// mode stores its runs).
	written, noise, err := gate.StoreRuns(dirs, absPath(e, *to), prov, "")
	if err != nil {
		return err
	}
	if len(dirs) > 1 {
		fmt.Fprintf(e.stderr, "noise floor measured over %d runs for %d scenario(s)\n", len(dirs), noise)
	}
	for _, p := range written {
		fmt.Fprintf(e.stdout, "wrote %s\n", p)
	}
	fmt.Fprintf(e.stdout, "%d baseline(s) updated in %s\n", len(written), *to)
	if *hist != "" {
		if err := appendHistory(e, *hist, written); err != nil {
			return withCode(exitRunFailed, fmt.Errorf("baseline update: history: %w", err))
		}
	}
	return nil
}

// storedProvenance is where baselines stored now come from, written one
// way by `perfgate baseline update` and the Action's baseline mode: the
// commit and ref the runner names (GITHUB_SHA, GITHUB_REF), the release tag
// when the ref is a tag (GITHUB_REF_TYPE tag: GITHUB_REF_NAME), this
// perfgate's version, and the hash of the config file at cfgPath, if given.
// Empty git fields are taken from the results by baselines.Update.
func storedProvenance(e *env, cfgPath string) (result.Provenance, error) {
	prov := result.Provenance{GitSHA: e.getenv("GITHUB_SHA"), GitRef: e.getenv("GITHUB_REF"), Perfgate: version}
	if e.getenv("GITHUB_REF_TYPE") == "tag" {
		prov.Tag = e.getenv("GITHUB_REF_NAME")
	}
	if cfgPath != "" {
		b, err := capread.ReadFile(cfgPath, capread.Config)
		if err != nil {
			return prov, err
		}
		prov.ConfigHash = baselines.HashConfig(b)
	}
	return prov, nil
}
