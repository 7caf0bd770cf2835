package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/perfgate/perfgate/internal/exitcode"
)

// Exit codes, as the README documents them (package exitcode).
const (
	exitPass       = exitcode.Pass
	exitRegression = exitcode.Regression
	exitUsage      = exitcode.Usage
	exitRunFailed  = exitcode.RunFailed
)

// version is set at build time with -ldflags "-X main.version=v1.2.3"
// (see version.go).
var version = devVersion

// env is what a subcommand may touch of the process: only main builds it.
type env struct {
	getenv func(string) string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	// isTerminal reports whether stderr, where progress goes, is a terminal.
	isTerminal bool
	// workdir is the directory relative paths resolve against.
	workdir string
	// supervisor is the command that supervises targets (this binary's
	// target-supervisor); main sets it, tests leave it empty.
	supervisor []string
	// initialEnv is the environment perfgate started with, secrets
	// included (main removed them from the process: see lockSecrets);
	// nil in tests, where targets start from os.Environ.
	initialEnv []string
	// exposures lists the ancestors that show one of perfgate's secrets
	// (ancestorExposures); main sets it, tests leave it nil.
	exposures func() []exposure
	// engine holds --engine, --loop-batch and --loop-spin of the command that sends
	// load (see engineSettings).
	engine engineFlags
}

// exitError carries an exit code with its error.
type exitError = exitcode.Error

// errHelp is returned when -h or --help was asked for: the flag set has
// already printed its usage, and the exit code is 0.
var errHelp = errors.New("help requested")

// isHelpArg reports whether a is one of the ways to ask for help.
func isHelpArg(a string) bool { return a == "-h" || a == "--help" || a == "-help" || a == "help" }

// usageErr marks err as a usage or configuration error (exit 2). When one
// of a is flag.ErrHelp (a flag set's -h), it returns errHelp instead, so
// every subcommand's -h exits 0.
func usageErr(format string, a ...any) error {
	for _, x := range a {
		if err, ok := x.(error); ok && errors.Is(err, flag.ErrHelp) {
			return errHelp
		}
	}
	return &exitError{Code: exitUsage, Err: fmt.Errorf(format, a...)}
}

// withCode marks err with an exit code.
func withCode(code int, err error) error {
	return exitcode.With(code, err)
}

// errSilentFail is returned when the verdict is a failure already reported.
var errSilentFail = errors.New("")

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	wd, _ := os.Getwd()
	e := &env{getenv: os.Getenv, stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr,
		isTerminal: isTerminal(os.Stderr), workdir: wd}
	var secretsWarning error
	if len(os.Args) < 2 || os.Args[1] != supervisorCommand {
		// The supervisor holds only what its target may have (it passes
		// its environment on); everything else reads secrets once, here.
		e.initialEnv, secretsWarning = lockSecrets()
		e.getenv = envLookup(e.initialEnv)
		secrets := secretValues(e.initialEnv)
		e.exposures = func() []exposure { return ancestorExposures("/proc", os.Getpid(), secrets) }
	}
	if exe, err := os.Executable(); err == nil {
		e.supervisor = []string{exe, supervisorCommand}
	}
	if os.Getenv("GITHUB_ACTIONS") == "true" {
		// On a runner, no line of ours may act as a workflow command.
		e.stdout, e.stderr = guardCommands(e.stdout), guardCommands(e.stderr)
	}
	if secretsWarning != nil {
		fmt.Fprintf(e.stderr, "perfgate: warning: %v\n", secretsWarning)
	}
	stopDebug := startDebug(os.Getenv(debugAddrEnv), os.Stderr)
	done := make(chan struct{})
	go exitAfterSignal(ctx, done, stop, signalGrace, os.Stderr, os.Exit)
	err := run(ctx, os.Args[1:], e)
	close(done)
	stopDebug()
	stop()
	code := exitCode(err, e.stderr)
	flushGuard(e.stdout)
	flushGuard(e.stderr)
	os.Exit(code)
}

// signalGrace is how long perfgate may take to stop after SIGINT or
// SIGTERM: its targets' stop (5 s each by default) and the results'
// writing fit; a run still going after it is ended.
const signalGrace = 30 * time.Second

// exitAfterSignal makes a signal always end perfgate. Once ctx is
// cancelled by a signal (before done is closed), it restores the signals'
// default action (stop), so that a second signal ends perfgate at once,
// and calls exit(exitRunFailed) if run has not returned within grace:
// something that does not heed ctx (a system call that blocks) must not
// keep perfgate alive.
func exitAfterSignal(ctx context.Context, done <-chan struct{}, stop func(), grace time.Duration, stderr io.Writer, exit func(int)) {
	select {
	case <-ctx.Done():
	case <-done:
		return
	}
	stop()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		fmt.Fprintf(stderr, "perfgate: still running %v after the signal: exiting\n", grace)
		exit(exitRunFailed)
	}
}

// exitCode maps err to the process exit code, printing it.
func exitCode(err error, stderr io.Writer) int {
	if err == nil || errors.Is(err, errHelp) {
		return exitPass
	}
	code := exitcode.Of(err)
	if msg := err.Error(); msg != "" {
		fmt.Fprintf(stderr, "perfgate: %s\n", msg)
	}
	return code
}

// run dispatches to a subcommand.
func run(ctx context.Context, args []string, e *env) error {
	if len(args) == 0 {
		fmt.Fprint(e.stderr, usageText)
		return usageErr("no command given")
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "demo", "run", "gate", "action":
		// They send load: an engine setting that means nothing is bad
		// input, found before anything starts.
		if _, err := engineFromEnv(e.getenv); err != nil {
			return usageErr("%v", err)
		}
	}
	switch cmd {
	case "demo":
		return cmdDemo(ctx, e, rest)
	case "run":
		return cmdRun(ctx, e, rest)
	case "compare":
		return cmdCompare(ctx, e, rest)
	case "size":
		return cmdSize(ctx, e, rest)
	case "gate":
		return cmdGate(ctx, e, rest)
	case "baseline":
		return cmdBaseline(ctx, e, rest)
	case "report":
		return cmdReport(ctx, e, rest)
	case "history":
		return cmdHistory(ctx, e, rest)
	case "export":
		return cmdExport(ctx, e, rest)
	case "bisect":
		return cmdBisect(ctx, e, rest)
	case "merge":
		return cmdMerge(ctx, e, rest)
	case "fixture":
		return cmdFixture(ctx, e, rest)
	case "action":
		return cmdAction(ctx, e, rest)
	case "gpu-sample":
		return cmdGPUSample(ctx, e, rest)
	case supervisorCommand:
		return cmdTargetSupervisor(ctx, e, rest)
	case "version", "--version":
		return cmdVersion(e, rest)
	case "help", "-h", "--help":
		fmt.Fprint(e.stdout, usageText)
		return nil
	}
	fmt.Fprint(e.stderr, usageText)
	return usageErr("unknown command %q", cmd)
}
