package e2e

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/platc/platc/internal/testenv/controlplane"
)

// The environment's processes run, and its waits poll, as the control
// plane's do (internal/testenv/controlplane), which the executor's tests
// share.
type (
	proc  = controlplane.Proc
	procs = controlplane.Procs
)

var (
	waitFor   = controlplane.WaitFor
	dialCheck = controlplane.DialCheck
	httpCheck = controlplane.HTTPCheck
	tail      = controlplane.Tail
	freePort  = controlplane.FreePort
)

// PeakRSS returns the peak resident set size (VmHWM) of the running
// process called name, in bytes.
func (e *Env) PeakRSS(name string) (int64, error) {
	for _, p := range e.procs.List() {
		if p.Name != name {
			continue
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.Pid()))
		if err != nil {
			return 0, err
		}
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
				var kb int64
				_, err := fmt.Sscan(f[1], &kb)
				return kb * 1024, err
			}
		}
	}
	return 0, fmt.Errorf("no process %s", name)
}

// CPUTimes is the CPU time (user plus system, from /proc/PID/stat) each
// component process has used so far, by name. Components that spawn
// helpers (the repo-server runs git and helm) count only what they have
// waited for.
func (e *Env) CPUTimes() map[string]time.Duration {
	out := map[string]time.Duration{}
	for _, p := range e.procs.List() {
		if d, err := procCPU(fmt.Sprintf("/proc/%d/stat", p.Pid()), false); err == nil {
			out[p.Name] += d
		}
	}
	return out
}

// clockTick is USER_HZ, which is 100 on every Linux this runs on.
const clockTick = 100

// procCPU reads utime+stime from a /proc stat file, or cutime+cstime (the
// waited-for children) when children is set.
func procCPU(path string, children bool) (time.Duration, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	// The command name may hold spaces: fields start after its ')'.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, fmt.Errorf("%s: no command name", path)
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state); utime is field 14, cutime 16.
	at := 14 - 3
	if children {
		at = 16 - 3
	}
	if len(f) < at+2 {
		return 0, fmt.Errorf("%s: too few fields", path)
	}
	var a, s int64
	if _, err := fmt.Sscan(f[at], &a); err != nil {
		return 0, err
	}
	if _, err := fmt.Sscan(f[at+1], &s); err != nil {
		return 0, err
	}
	return time.Duration(a+s) * time.Second / clockTick, nil
}

// machineBusy is the machine's busy CPU time so far, from /proc/stat:
// every CPU state but idle and iowait. It counts every process on the
// machine, the environment's and anyone else's.
func machineBusy() (time.Duration, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 8 || f[0] != "cpu" {
		return 0, errors.New("/proc/stat: no cpu line")
	}
	var busy int64
	for i, v := range f[1:] {
		if i == 3 || i == 4 || i >= 8 { // idle, iowait; guest is in user already
			continue
		}
		var n int64
		if _, err := fmt.Sscan(v, &n); err != nil {
			return 0, err
		}
		busy += n
	}
	return time.Duration(busy) * time.Second / clockTick, nil
}
