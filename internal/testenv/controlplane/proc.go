package controlplane

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

	"k8s.io/apimachinery/pkg/util/wait"
)

// Proc is one component running as a process on loopback. Its output
// goes to a log file, which is what a failure message quotes.
type Proc struct {
	Name string
	Log  string // the log file
	cmd  *exec.Cmd
	done chan struct{}
	err  error // set before done closes
}

// Pid is the process's id.
func (p *Proc) Pid() int { return p.cmd.Process.Pid }

// Procs starts and stops processes, newest first on stop, so a
// controller never outlives the API server it talks to.
type Procs struct {
	Dir  string // logs go to Dir/logs/<name>.log; processes run in Dir
	mu   sync.Mutex
	list []*Proc
}

// Start runs bin with args and env (added to a minimal environment: PATH
// and HOME=Dir), its output in Dir/logs/<name>.log.
func (ps *Procs) Start(name, bin string, args []string, env []string) (*Proc, error) {
	logDir := filepath.Join(ps.Dir, "logs")
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
	cmd.Dir = ps.Dir
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + ps.Dir}, env...)
	// Its own process group, so stopping it also stops what it spawned
	// (Argo CD's repo-server runs git and helm).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &Proc{Name: name, cmd: cmd, Log: logPath, done: make(chan struct{})}
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

// List is the running processes, oldest first.
func (ps *Procs) List() []*Proc {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return append([]*Proc(nil), ps.list...)
}

// Stop ends every process, newest first: SIGTERM to its group, then
// SIGKILL after grace.
func (ps *Procs) Stop(grace time.Duration) {
	ps.mu.Lock()
	list := ps.list
	ps.list = nil
	ps.mu.Unlock()
	for i := len(list) - 1; i >= 0; i-- {
		list[i].Stop(grace)
	}
}

// Stop ends the process: SIGTERM to its group, then SIGKILL after grace.
func (p *Proc) Stop(grace time.Duration) {
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

// Exited reports an error, with the log's tail, if the process has
// stopped.
func (p *Proc) Exited() error {
	select {
	case <-p.done:
		return fmt.Errorf("%s exited (%v); last lines of %s:\n%s", p.Name, p.err, p.Log, Tail(p.Log, 30))
	default:
		return nil
	}
}

// Tail returns the last n lines of a file.
func Tail(path string, n int) string {
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

// FreePort returns a loopback port nobody listens on now.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// freePorts returns n distinct free ports, all held open while picking
// so that two calls cannot return the same one.
func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var out []int
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		out = append(out, l.Addr().(*net.TCPAddr).Port)
	}
	return out, nil
}

// PollInterval is how often WaitFor checks.
const PollInterval = 200 * time.Millisecond

// WaitFor polls check (apimachinery's wait) until it succeeds, p (if not
// nil) exits, or limit passes. On timeout the error names what it waited
// for, the last check error and p's log tail.
func WaitFor(ctx context.Context, p *Proc, what string, limit time.Duration, check func(context.Context) error) error {
	var last error
	err := wait.PollUntilContextTimeout(ctx, PollInterval, limit, true, func(ctx context.Context) (bool, error) {
		if p != nil {
			if err := p.Exited(); err != nil {
				return false, err
			}
		}
		last = check(ctx)
		return last == nil, nil
	})
	if err == nil {
		return nil
	}
	if !wait.Interrupted(err) {
		return err // the process exited
	}
	if last == nil {
		last = err // the context ended before the first check finished
	}
	msg := fmt.Sprintf("%s not ready after %s: %v", what, limit, last)
	if p != nil {
		msg += fmt.Sprintf("\nlast lines of %s:\n%s", p.Log, Tail(p.Log, 30))
	}
	return errors.New(msg)
}

// DialCheck succeeds once something accepts connections on addr.
func DialCheck(addr string) func(context.Context) error {
	return func(ctx context.Context) error {
		var d net.Dialer
		c, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			return err
		}
		return c.Close()
	}
}

// HTTPCheck succeeds once url answers 200 through client.
func HTTPCheck(client *http.Client, url string) func(context.Context) error {
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
