package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/perfgate/perfgate/changepoint"
	"github.com/perfgate/perfgate/ghaction"
	"github.com/perfgate/perfgate/history"
	"github.com/perfgate/perfgate/internal/githubapi"
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/result"
	"github.com/sethvargo/go-githubactions"
)

// defaultHistory is the folder history commands read and write when
// --history is not given.
const defaultHistory = "perfgate-history"

// cmdHistory is `perfgate history show|add|changes|push|compact`: the run
// history across commits (docs/history.md).
func cmdHistory(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 || isHelpArg(args[0]) {
		fmt.Fprint(e.stdout, commandUsage("history"))
		if len(args) == 0 {
			return usageErr("history: want a subcommand: show, add, changes, push or compact")
		}
		return nil
	}
	sub, rest := args[0], args[1:]
	fs := flag.NewFlagSet("history "+sub, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	setUsage(fs, "history")
	var (
		src      = fs.String("history", defaultHistory, "history `DIR|REF`: a folder, or a git ref such as origin/perfgate-data (REF:PATH for a folder in it)")
		scenario = fs.String("scenario", "", "only this scenario")
		metric   = fs.String("metric", "", "only this metric (p99_ms, max_qps, …)")
		format   = fs.String("format", "text", "output: text, markdown (changes) or json")
		commit   = fs.String("commit", "", "add, push: the commit measured (default: the results' git, or $GITHUB_SHA)")
		ref      = fs.String("ref", "", "add, push: the ref measured (default: the results', or $GITHUB_REF)")
		remote   = fs.String("remote", "origin", "push: the remote")
		branch   = fs.String("branch", history.DefaultBranch, "push: the history branch")
		keep     = fs.Int("keep", history.DefaultRetention.Keep, "compact, push: records kept per scenario and runner")
		keepH    = fs.Int("keep-histograms", history.DefaultRetention.KeepHistograms, "compact, push: newest records that keep their histograms")
		froms    stringList
	)
	fs.Var(&froms, "from", "add, push: `DIR` of results (perfgate run --out DIR); repeatable")
	if err := fs.Parse(rest); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return usageErr("history %s: %v", sub, err)
	}
	if fs.NArg() > 0 {
		return usageErr("history %s: unexpected argument %q", sub, fs.Arg(0))
	}
	ret := history.Retention{Keep: *keep, KeepHistograms: *keepH}
	switch sub {
	case "show", "changes":
		s, err := history.Open(ctx, *src, e.workdir)
		if err != nil {
			return usageErr("history %s: %v", sub, err)
		}
		recs, err := s.Read(ctx)
		if err != nil {
			return withCode(exitUsage, err)
		}
		series := history.AllSeries(recs, *scenario, *metric)
		if sub == "show" {
			if *format == "json" {
				return writeJSON(e, series)
			}
			return report.HistoryText(e.stdout, series)
		}
		var all []history.Change
		for _, s := range series {
			cs, err := s.Changes(changepoint.DefaultSettings())
			if err != nil {
				return err
			}
			all = append(all, cs...)
		}
		switch *format {
		case "json":
			return writeJSON(e, all)
		case "markdown":
			return report.ChangesMarkdown(e.stdout, all)
		}
		return report.ChangesText(e.stdout, all)
	case "add", "push":
		recs, err := historyRecords(e, froms, *commit, *ref)
		if err != nil {
			return err
		}
		if sub == "add" {
			if err := history.Dir(absPath(e, *src)).Append(recs); err != nil {
				return withCode(exitRunFailed, err)
			}
			fmt.Fprintf(e.stdout, "%d record(s) added to %s\n", len(recs), *src)
			return nil
		}
		p := history.Pusher{Repo: e.workdir, Remote: *remote, Branch: *branch, Retention: ret}
		c, n, err := p.Push(ctx, recs)
		if err != nil {
			return withCode(exitRunFailed, err)
		}
		fmt.Fprintf(e.stdout, "%d record(s) pushed to %s %s as %s (%d attempt(s))\n", len(recs), *remote, *branch, c, n)
		return nil
	case "compact":
		n, err := history.Dir(absPath(e, *src)).Compact(ctx, ret)
		if err != nil {
			return withCode(exitRunFailed, err)
		}
		fmt.Fprintf(e.stdout, "%d record(s) dropped from %s\n", n, *src)
		return nil
	}
	return usageErr("history: unknown subcommand %q: want show, add, changes, push or compact", sub)
}

// historyRecords reads the result folders froms into history records.
func historyRecords(e *env, froms []string, commit, ref string) ([]history.Record, error) {
	if len(froms) == 0 {
		return nil, usageErr("history: --from DIR is required")
	}
	m := history.Meta{Commit: firstOf(commit, e.getenv("GITHUB_SHA")), Ref: firstOf(ref, e.getenv("GITHUB_REF")),
		Date: time.Now().UTC(), Perfgate: version}
	var recs []history.Record
	for _, f := range froms {
		d, err := resultsPath("--from", absPath(e, f))
		if err != nil {
			return nil, usageErr("history: %v", err)
		}
		rs, err := result.ReadResults(d)
		if err != nil {
			return nil, withCode(exitUsage, err)
		}
		got, errs := history.FromResults(rs, m)
		for _, err := range errs {
			fmt.Fprintf(e.stderr, "perfgate: history: %v\n", err)
		}
		recs = append(recs, got...)
	}
	if len(recs) == 0 {
		return nil, withCode(exitRunFailed, errors.New("history: no valid result to record"))
	}
	return recs, nil
}

// appendHistory appends the baselines just written (paths) to the
// history folder dir, as baseline records.
func appendHistory(e *env, dir string, paths []string) error {
	var rs []*result.Result
	for _, p := range paths {
		r, err := result.ReadFile(p)
		if err != nil {
			return err
		}
		rs = append(rs, r)
	}
	recs, errs := history.FromResults(rs, history.Meta{Baseline: true, Perfgate: version})
	if err := history.Dir(absPath(e, dir)).Append(recs); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%d history record(s) appended to %s\n", len(recs), dir)
	return errors.Join(errs...)
}

func writeJSON(e *env, v any) error {
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// fetchHistory fetches the history branch of origin into its
// remote-tracking ref, which it returns, for gate mode (read permission
// is enough). A branch not there yet is no error: the ref returned then
// does not resolve, and the gate is told to assume its noise.
func fetchHistory(ctx context.Context, e *env, branch string) (string, error) {
	ref := "refs/remotes/origin/" + branch
	cmd := exec.CommandContext(ctx, "git", "fetch", "--quiet", "--no-tags", "origin", "+refs/heads/"+branch+":"+ref)
	cmd.Dir = e.workdir
	if out, err := cmd.CombinedOutput(); err != nil {
		if strings.Contains(string(out), "couldn't find remote ref") {
			fmt.Fprintf(e.stderr, "perfgate: history branch %s not found on origin yet: run-to-run noise assumed\n", branch)
			return "", nil
		}
		return "", withCode(exitUsage, fmt.Errorf("fetching the history branch %s: %v: %s", branch, err, strings.TrimSpace(string(out))))
	}
	return ref, nil
}

// actionHistory is baseline mode's history: it pushes the baselines just
// written to the history branch of origin and lists, in the step summary,
// the change points the new runs complete (those whose first run after the
// change is this commit's).
func actionHistory(ctx context.Context, e *env, in ghaction.Inputs, written []string) error {
	branch := in.HistoryBranch
	var rs []*result.Result
	for _, p := range written {
		r, err := result.ReadFile(p)
		if err != nil {
			return err
		}
		rs = append(rs, r)
	}
	m := history.Meta{Baseline: true, Perfgate: version, Commit: e.getenv("GITHUB_SHA"), Ref: e.getenv("GITHUB_REF")}
	recs, errs := history.FromResults(rs, m)
	for _, err := range errs {
		fmt.Fprintf(e.stderr, "perfgate: history: %v\n", err)
	}
	p := history.Pusher{Repo: e.workdir, Remote: "origin", Branch: branch, Retention: history.DefaultRetention}
	commit, n, err := p.Push(ctx, recs)
	if err != nil {
		return withCode(exitRunFailed, fmt.Errorf("history: %w", err))
	}
	fmt.Fprintf(e.stderr, "perfgate: %d history record(s) pushed to %s as %s (%d attempt(s))\n", len(recs), branch, commit, n)
	// New change points: found with the new runs, not before them (a
	// change needs a few runs after it to be found, so the one this push
	// completes may lie a few commits back).
	now, err := historyChanges(ctx, e.workdir, commit)
	if err != nil {
		return withCode(exitRunFailed, err)
	}
	before, err := historyChanges(ctx, e.workdir, commit+"^")
	if err != nil {
		before = nil // the branch's first commit: everything is new
	}
	seen := map[string]bool{}
	for _, c := range before {
		seen[changeID(c)] = true
	}
	var fresh []history.Change
	for _, c := range now {
		if !seen[changeID(c)] {
			fresh = append(fresh, c)
		}
	}
	var b strings.Builder
	if err := report.ChangesMarkdown(&b, fresh); err != nil {
		return err
	}
	if in.HistoryIssue && len(fresh) > 0 {
		changeIssue(ctx, e, in, b.String(), len(fresh))
	}
	if path := e.getenv("GITHUB_STEP_SUMMARY"); path != "" {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = f.WriteString("\n" + b.String())
		return err
	}
	fmt.Fprint(e.stdout, b.String())
	return nil
}

// historyChanges are the change points of every series of the history at
// rev.
func historyChanges(ctx context.Context, repo, rev string) ([]history.Change, error) {
	recs, err := history.Git{Repo: repo, Ref: rev}.Read(ctx)
	if err != nil {
		return nil, err
	}
	var out []history.Change
	for _, s := range history.AllSeries(recs, "", "") {
		cs, err := s.Changes(changepoint.DefaultSettings())
		if err != nil {
			return nil, err
		}
		out = append(out, cs...)
	}
	return out, nil
}

// changeID names a change point by its series and the first run after it.
func changeID(c history.Change) string {
	return c.Scenario + "\x00" + c.Runner + "\x00" + c.Metric + "\x00" + c.After.Commit + "\x00" + c.After.Date.String()
}

// changeIssue is the history-issue input: it reports the new change points
// (md, their markdown table) on the repository's open perfgate change-point
// issue, or opens one. The baselines and the history are stored by then, so
// a failure (no token, no issues: write) is a warning annotation, not an
// error.
func changeIssue(ctx context.Context, e *env, in ghaction.Inputs, md string, n int) {
	token := in.Token
	gha := githubactions.New(githubactions.WithGetenv(e.getenv), githubactions.WithWriter(unguarded(e.stdout)))
	warn := func(format string, a ...any) {
		gha.WithFieldsMap(map[string]string{"title": "perfgate history-issue"}).Warningf(format, a...)
	}
	if token == "" {
		warn("no github-token: the %d new change point(s) are in the step summary only", n)
		return
	}
	repo, err := githubapi.ParseRepo(e.getenv("GITHUB_REPOSITORY"))
	if err != nil {
		warn("no issue: GITHUB_REPOSITORY: %v", err)
		return
	}
	c, err := githubapi.New(e.getenv("GITHUB_API_URL"), token)
	if err != nil {
		warn("no issue: %v", err)
		return
	}
	ref := firstOf(e.getenv("GITHUB_REF_NAME"), strings.TrimPrefix(e.getenv("GITHUB_REF"), "refs/heads/"))
	title := "perfgate: performance change points"
	if ref != "" {
		title += " on " + ref
	}
	body := md + "\nFound by the baseline job"
	if sha := e.getenv("GITHUB_SHA"); sha != "" {
		body += " of commit " + sha
	}
	if gh, err := ghaction.ReadGitHub(e.getenv); err == nil && gh.RunURL() != "" {
		body += " ([run](" + gh.RunURL() + "))"
	}
	body += "; `perfgate history changes --history origin/" + in.HistoryBranch + "` lists every change point.\n"
	r, err := c.ReportChangePoints(ctx, repo, title, body)
	if err != nil {
		if errors.Is(err, githubapi.ErrForbidden) {
			warn("the token may not write issues (give the job issues: write): %v", err)
			return
		}
		warn("reporting the change points in an issue: %v", err)
		return
	}
	verb := "commented on"
	if r.Opened {
		verb = "opened"
	}
	fmt.Fprintf(e.stderr, "perfgate: %d new change point(s): %s issue #%d %s\n", n, verb, r.Issue, r.URL)
}
