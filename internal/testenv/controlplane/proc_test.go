package controlplane

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// A wait that times out names what it waited for and the last reason.
func TestWaitForTimeoutSaysWhat(t *testing.T) {
	err := WaitFor(context.Background(), nil, "the widget", 500*time.Millisecond, func(context.Context) error {
		return errors.New("3 of 5 widgets ready")
	})
	if err == nil || !strings.Contains(err.Error(), "the widget not ready after 500ms: 3 of 5 widgets ready") {
		t.Fatalf("got %v", err)
	}
}

// A process that exits ends the wait at once, with its log's tail.
func TestWaitForProcessExit(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	ps := &Procs{Dir: t.TempDir()}
	defer ps.Stop(time.Second)
	p, err := ps.Start("dies", sh, []string{"-c", "echo cannot bind; exit 3"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err = WaitFor(context.Background(), p, "dies", time.Minute, func(context.Context) error { return errors.New("not yet") })
	if err == nil || !strings.Contains(err.Error(), "dies exited (exit status 3)") || !strings.Contains(err.Error(), "cannot bind") {
		t.Fatalf("got %v", err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("the wait took %s after the process exited", d)
	}
}

func TestWaitForSucceeds(t *testing.T) {
	n := 0
	err := WaitFor(context.Background(), nil, "the third try", 10*time.Second, func(context.Context) error {
		if n++; n < 3 {
			return errors.New("not yet")
		}
		return nil
	})
	if err != nil || n != 3 {
		t.Fatalf("err %v after %d checks", err, n)
	}
}

func TestUsersFile(t *testing.T) {
	c := &ControlPlane{}
	dir := t.TempDir()
	tokens, err := c.keyFiles(Options{Dir: dir, Users: []User{{Token: "a", Name: "admin", Groups: []string{"system:masters", "x"}}, {Token: "b", Name: "bob"}}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(tokens)
	if err != nil {
		t.Fatal(err)
	}
	if want := "a,admin,uid-admin,\"system:masters,x\"\nb,bob,uid-bob\n"; string(b) != want {
		t.Errorf("tokens file %q, want %q", b, want)
	}
}
