//go:build linux

package targetproc

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// supervisorSupported reports whether Spec.Supervisor is used here.
const supervisorSupported = true

// Timing of the supervisor's checks and of its cleanup.
const (
	// parentPoll is how often the supervisor checks that perfgate is still
	// its parent, beside the parent-death signal.
	parentPoll = 500 * time.Millisecond
	// treeGrace is how long the target's remaining processes have, after
	// SIGTERM, once its main process has exited.
	treeGrace = 2 * time.Second
)

// Supervise runs argv as a target's main process and keeps its whole
// process tree tied to perfgate: it is the body of the hidden command
// `perfgate target-supervisor`, which Start puts between perfgate
// and the target when Spec.Supervisor is set. parent is perfgate's
// pid.
//
// On Linux the supervisor asks for a parent-death signal, so the kernel
// tells it when perfgate dies, however it dies (SIGKILL, out of memory),
// and makes itself a child subreaper, so every process the target starts,
// even one that leaves the process group or daemonizes, stays its
// descendant. When perfgate is gone it SIGKILLs every descendant and
// exits. When the target's main process exits, the processes it left are
// sent SIGTERM, then SIGKILL after two seconds, and the supervisor exits
// with the target's status, so perfgate sees the target's own exit.
//
// Signals perfgate's Stop sends to the process group reach the target
// directly; the supervisor itself outlives them until the target is gone.
func Supervise(parent int, argv []string) (syscall.WaitStatus, error) {
	if len(argv) == 0 {
		return 0, fmt.Errorf("target supervisor: no command")
	}
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGUSR1)
	defer signal.Stop(sigs)
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return 0, fmt.Errorf("target supervisor: PR_SET_CHILD_SUBREAPER: %w", err)
	}
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(syscall.SIGUSR1), 0, 0, 0); err != nil {
		return 0, fmt.Errorf("target supervisor: PR_SET_PDEATHSIG: %w", err)
	}
	// perfgate may have died before the parent-death signal was set.
	if os.Getppid() != parent {
		return 0, fmt.Errorf("target supervisor: perfgate (pid %d) is gone", parent)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("target supervisor: %w", err)
	}
	main := cmd.Process.Pid
	exited := make(chan syscall.WaitStatus, 1)
	go reapAll(main, exited)
	tick := time.NewTicker(parentPoll)
	defer tick.Stop()
	for {
		select {
		case ws := <-exited:
			// The main process is gone: its helpers go with it.
			endDescendants(treeGrace)
			return ws, nil
		case <-sigs:
			// SIGTERM from Stop reached the target too; anything else
			// may be the parent-death signal: check which.
		case <-tick.C:
		}
		if os.Getppid() != parent {
			endDescendants(0)
			return 0, fmt.Errorf("target supervisor: perfgate (pid %d) died; killed the target", parent)
		}
	}
}

// reapAll reaps every child the supervisor gets (as a subreaper, the
// target's orphans become its children) and sends the main process's
// status once.
func reapAll(main int, exited chan<- syscall.WaitStatus) {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil { // ECHILD: nothing left; wait for the next child
			time.Sleep(10 * time.Millisecond)
			continue
		}
		if pid == main {
			exited <- ws
		}
	}
}

// endDescendants ends every descendant of this process: SIGTERM, then
// SIGKILL after grace (at once when grace is 0), until none is left or
// five seconds have passed.
func endDescendants(grace time.Duration) {
	self := os.Getpid()
	if grace > 0 {
		for _, pid := range descendants(self) {
			syscall.Kill(pid, syscall.SIGTERM)
		}
		for deadline := time.Now().Add(grace); time.Now().Before(deadline) && len(descendants(self)) > 0; {
			time.Sleep(20 * time.Millisecond)
		}
	}
	for deadline := time.Now().Add(killWait); time.Now().Before(deadline); {
		left := descendants(self)
		if len(left) == 0 {
			// Leave no zombie to a parent that may never reap it: give
			// reapAll a moment for the last ones.
			for end := time.Now().Add(time.Second); time.Now().Before(end) && hasChildren(self); {
				time.Sleep(5 * time.Millisecond)
			}
			return
		}
		for _, pid := range left {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// hasChildren reports whether pid has any child, a zombie included.
func hasChildren(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + strconv.Itoa(pid) + "/children")
	return err == nil && len(strings.TrimSpace(string(b))) > 0
}

// descendants lists the live (not zombie) processes below pid, read from
// /proc. A process that forks while this runs is found by the next call.
func descendants(pid int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		state, ppid, ok := parseProcStatParent(string(b))
		if ok && state != 'Z' && state != 'X' {
			children[ppid] = append(children[ppid], p)
		}
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// parseProcStatParent reads the state and the parent pid from the text of
// /proc/PID/stat (see parseProcStat).
func parseProcStatParent(s string) (state byte, ppid int, ok bool) {
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 || len(f[0]) != 1 {
		return 0, 0, false
	}
	ppid, err := strconv.Atoi(f[1])
	if err != nil {
		return 0, 0, false
	}
	return f[0][0], ppid, true
}
