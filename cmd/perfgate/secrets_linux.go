//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// closeProcess makes the secrets named unreadable from outside:
//
//   - it overwrites their NAME=value entries with NUL bytes in the
//     environment block the kernel shows as /proc/self/environ (the block
//     is the process's initial stack; Go copied it at start and never reads
//     it again; C's environ pointers then point to empty strings, which no
//     getenv matches);
//   - it makes the process non-dumpable (prctl PR_SET_DUMPABLE 0), so its
//     /proc files (environ, mem, maps) are owned by root and closed to
//     other processes of the same user, and no core dump is written.
//
// A process perfgate starts is dumpable again after its execve (the flag
// is reset for ordinary binaries), so targets are unaffected. Root (or
// CAP_SYS_PTRACE) can still read perfgate's memory; nothing in user space
// can stop that.
func closeProcess(names []string) error {
	var errs []string
	if len(names) > 0 {
		if err := zeroEnvBlock(names); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		errs = append(errs, fmt.Sprintf("prctl(PR_SET_DUMPABLE, 0): %v", err))
	}
	if len(errs) > 0 {
		return fmt.Errorf("closing perfgate's secrets to other processes: %s", strings.Join(errs, "; "))
	}
	return nil
}

// zeroEnvBlock overwrites the entries named in /proc/self/environ's block
// with NULs, through /proc/self/mem (no unsafe pointer arithmetic).
func zeroEnvBlock(names []string) error {
	start, end, err := envBlock()
	if err != nil {
		return err
	}
	mem, err := os.OpenFile("/proc/self/mem", os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer mem.Close()
	block := make([]byte, end-start)
	if _, err := mem.ReadAt(block, start); err != nil {
		return fmt.Errorf("reading the environment block: %w", err)
	}
	changed := false
	for off := 0; off < len(block); {
		n := bytes.IndexByte(block[off:], 0)
		if n < 0 {
			n = len(block) - off
		}
		name, _, _ := bytes.Cut(block[off:off+n], []byte("="))
		for _, s := range names {
			if string(name) == s {
				clear(block[off : off+n])
				changed = true
				break
			}
		}
		off += n + 1
	}
	if !changed {
		return nil
	}
	if _, err := mem.WriteAt(block, start); err != nil {
		return fmt.Errorf("clearing the environment block: %w", err)
	}
	return nil
}

// envBlock returns the env_start and env_end addresses from
// /proc/self/stat (fields 50 and 51, Linux 3.5 and later).
func envBlock() (start, end int64, err error) {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, 0, err
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	// f[0] is field 3 (state), so field n is f[n-3].
	if len(f) < 49 {
		return 0, 0, fmt.Errorf("/proc/self/stat has %d fields, want 51 (Linux 3.5 or later)", len(f)+2)
	}
	if start, err = strconv.ParseInt(f[47], 10, 64); err == nil {
		end, err = strconv.ParseInt(f[48], 10, 64)
	}
	if err != nil || end <= start || end-start > 64<<20 {
		return 0, 0, fmt.Errorf("/proc/self/stat: env_start %q, env_end %q: not an address range", f[47], f[48])
	}
	return start, end, nil
}
