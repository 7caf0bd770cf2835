package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/perfgate/perfgate/targetproc"
)

// supervisorCommand is the hidden subcommand that supervises a target
// (targetproc.Supervise): `perfgate target-supervisor PARENT-PID COMMAND...`.
// perfgate starts it itself; it is not for people.
const supervisorCommand = "target-supervisor"

// cmdTargetSupervisor runs a target under targetproc.Supervise and ends as
// the target ended: with its exit status, or killed by its signal.
func cmdTargetSupervisor(_ context.Context, e *env, args []string) error {
	if len(args) < 2 {
		return usageErr("%s: want PARENT-PID COMMAND [ARG]... (perfgate starts this itself)", supervisorCommand)
	}
	parent, err := strconv.Atoi(args[0])
	if err != nil || parent <= 1 {
		return usageErr("%s: parent pid %q: want a number > 1", supervisorCommand, args[0])
	}
	ws, err := targetproc.Supervise(parent, args[1:])
	if err != nil {
		fmt.Fprintf(e.stderr, "perfgate: %v\n", err)
		return withCode(exitRunFailed, errSilentFail)
	}
	if ws.Signaled() {
		// Die of the same signal, so that perfgate reports the target's
		// own end ("killed by signal segmentation fault").
		signal.Reset(ws.Signal())
		syscall.Kill(os.Getpid(), ws.Signal())
		return withCode(128+int(ws.Signal()), errSilentFail)
	}
	return withCode(ws.ExitStatus(), errSilentFail)
}
