package e2e

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// proc is one component running as a process on loopback. Its output
// goes to a log file in the environment's directory, which is what a
// failure message quotes.
type proc struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{}
	err  error // set before done closes
}

// procs starts and stops the environment's processes, in reverse order
// of starting, so a controller never outlives the API server it talks to.
type procs struct {
	mu   sync.Mutex
	dir  string
	list []*proc
}

// start runs bin with args and env (added to a minimal environment) and
// its output in dir/logs/<name>.log.
func (ps *procs) start(name, bin string, args []string, env []string) (*proc, error) {
	logDir := filepath.Join(ps.dir, "logs")
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return nil, err
	}
	logPath := filepath.Join(logDir, name+".log")
	f, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.Dir = ps.dir
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + ps.dir}, env...)
	// Its own process group, so stopping it also stops what it spawned
	// (the repo-server runs git and helm).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, log: logPath, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		f.Close()
		close(p.done)
	}()
	ps.mu.Lock()
	ps.list = append(ps.list, p)
	ps.mu.Unlock()
	return p, nil
}

// stop ends every process, newest first: SIGTERM to its group, then
// SIGKILL after grace.
func (ps *procs) stop(grace time.Duration) {
	ps.mu.Lock()
	list := ps.list
	ps.list = nil
	ps.mu.Unlock()
	for i := len(list) - 1; i >= 0; i-- {
		list[i].stop(grace)
	}
}

func (p *proc) stop(grace time.Duration) {
	select {
	case <-p.done:
		return
	default:
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	}
}

// exited reports an error if the process has stopped.
func (p *proc) exited() error {
	select {
	case <-p.done:
		return fmt.Errorf("%s exited (%v); last lines of %s:\n%s", p.name, p.err, p.log, tail(p.log, 30))
	default:
		return nil
	}
}

// tail returns the last n lines of a file.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// freePort returns a loopback port nobody listens on now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// waitFor polls check until it succeeds, the process dies or limit
// passes. It returns the last error seen with the process's log tail.
func waitFor(ctx context.Context, p *proc, what string, limit time.Duration, check func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	var last error
	for {
		if p != nil {
			if err := p.exited(); err != nil {
				return err
			}
		}
		if last = check(ctx); last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			msg := fmt.Sprintf("%s not ready after %s: %v", what, limit, last)
			if p != nil {
				msg += fmt.Sprintf("\nlast lines of %s:\n%s", p.log, tail(p.log, 30))
			}
			return errors.New(msg)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// dialCheck succeeds once something accepts connections on addr.
func dialCheck(addr string) func(context.Context) error {
	return func(ctx context.Context) error {
		var d net.Dialer
		c, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			return err
		}
		return c.Close()
	}
}

// httpCheck succeeds once url answers 200 through client.
func httpCheck(client *http.Client, url string) func(context.Context) error {
	return func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s: %s", url, resp.Status)
		}
		return nil
	}
}

// PeakRSS returns the peak resident set size (VmHWM) of the running
// process called name, in bytes.
func (e *Env) PeakRSS(name string) (int64, error) {
	e.procs.mu.Lock()
	defer e.procs.mu.Unlock()
	for _, p := range e.procs.list {
		if p.name != name {
			continue
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
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
	e.procs.mu.Lock()
	defer e.procs.mu.Unlock()
	out := map[string]time.Duration{}
	for _, p := range e.procs.list {
		if d, err := procCPU(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid), false); err == nil {
			out[p.name] += d
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
