package write

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/platc/platc/emit"
)

func gen(path, body string) emit.File {
	return emit.File{Path: path, Data: []byte(emit.Header + body)}
}

// snapshot is everything observable about a tree: for each path, its
// kind, content or link target, mode, and inode and modification time
// (so a file rewritten with the same bytes still shows as touched).
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		st := info.Sys().(*syscall.Stat_t)
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = "link " + target
		case info.IsDir():
			out[rel] = "dir " + info.Mode().Perm().String()
		default:
			data, _ := os.ReadFile(p)
			out[rel] = info.Mode().Perm().String() + " ino=" + itoa(st.Ino) + " mtime=" + info.ModTime().Format(time.RFC3339Nano) + " " + string(data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func itoa(n uint64) string {
	var b []byte
	for {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
		if n == 0 {
			return string(b)
		}
	}
}

func mustWrite(t *testing.T, dir string, files ...emit.File) []Change {
	t.Helper()
	changes, err := Write(dir, files)
	if err != nil {
		t.Fatal(err)
	}
	return changes
}

func put(t *testing.T, p, data string, mode fs.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
}

// leftovers lists temporary directories beside dir.
func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(filepath.Dir(dir), "."+filepath.Base(dir)+tmpMarker+"*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestWriteFreshAndNoop(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "generated", "prod")
	files := []emit.File{gen("workflows/a.yaml", "a\n"), gen("argocd/b.yaml", "b\n")}
	got := mustWrite(t, dir, files...)
	want := []Change{{"argocd/b.yaml", Added}, {"workflows/a.yaml", Added}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	before := snapshot(t, dir)
	if got := mustWrite(t, dir, files...); len(got) != 0 {
		t.Errorf("second write changed %v", got)
	}
	if diff := cmp.Diff(before, snapshot(t, dir)); diff != "" {
		t.Errorf("a write with nothing to change touched the tree:\n%s", diff)
	}
	if l := leftovers(t, dir); len(l) != 0 {
		t.Errorf("temporary directories left: %v", l)
	}
}

// Everything platc did not generate survives a write untouched: same
// bytes, mode, inode and modification time; links stay links; empty
// directories stay. Generated files that did not change are not
// rewritten either.
func TestWriteKeepsOtherFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "prod")
	mustWrite(t, dir, gen("workflows/a.yaml", "a\n"), gen("workflows/keep.yaml", "same\n"), gen("old/stale.yaml", "stale\n"))
	put(t, filepath.Join(dir, "README.md"), "mine\n", 0o600)
	put(t, filepath.Join(dir, "workflows", "notes.txt"), "also mine\n", 0o644)
	put(t, filepath.Join(dir, "old", "user.txt"), "user file beside a stale one\n", 0o644)
	// A file that merely mentions the header later is not generated.
	put(t, filepath.Join(dir, "quoted.yaml"), "# see:\n"+emit.Header, 0o644)
	if err := os.Symlink("../README.md", filepath.Join(dir, "workflows", "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "empty"), 0o700); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, dir)
	time.Sleep(10 * time.Millisecond) // a rewrite would show in mtime

	got := mustWrite(t, dir, gen("workflows/a.yaml", "a2\n"), gen("workflows/keep.yaml", "same\n"), gen("new/n.yaml", "n\n"))
	want := []Change{{"new/n.yaml", Added}, {"old/stale.yaml", Removed}, {"workflows/a.yaml", Changed}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	after := snapshot(t, dir)
	for _, p := range []string{"README.md", "workflows/notes.txt", "old/user.txt", "quoted.yaml", "workflows/link", "empty", "workflows/keep.yaml"} {
		if before[p] != after[p] {
			t.Errorf("%s changed:\n before %q\n after  %q", p, before[p], after[p])
		}
	}
	if _, ok := after["old/stale.yaml"]; ok {
		t.Error("stale generated file not removed")
	}
	if !strings.HasSuffix(after["workflows/a.yaml"], emit.Header+"a2\n") {
		t.Errorf("changed file has %q", after["workflows/a.yaml"])
	}
}

// A directory that held only stale generated files goes with them.
func TestWriteDropsEmptiedDirectories(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "prod")
	mustWrite(t, dir, gen("events/sensor.yaml", "s\n"), gen("workflows/a.yaml", "a\n"))
	mustWrite(t, dir, gen("workflows/a.yaml", "a\n"))
	if _, err := os.Stat(filepath.Join(dir, "events")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("events/ should be gone: %v", err)
	}
}

func TestWriteRefusesConflicts(t *testing.T) {
	for _, c := range []struct {
		name  string
		setup func(t *testing.T, dir string)
		want  string
	}{
		{"user file", func(t *testing.T, dir string) {
			put(t, filepath.Join(dir, "workflows", "a.yaml"), "kind: Mine\n", 0o644)
		}, "a file without the platc header"},
		{"directory", func(t *testing.T, dir string) {
			if err := os.MkdirAll(filepath.Join(dir, "workflows", "a.yaml"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, "a directory"},
		{"file as parent", func(t *testing.T, dir string) { put(t, filepath.Join(dir, "workflows"), "x", 0o644) }, "a file without the platc header"},
		{"link", func(t *testing.T, dir string) {
			put(t, filepath.Join(dir, "elsewhere"), emit.Header, 0o644)
			if err := os.MkdirAll(filepath.Join(dir, "workflows"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("../elsewhere", filepath.Join(dir, "workflows", "a.yaml")); err != nil {
				t.Fatal(err)
			}
		}, "a symbolic link"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "prod")
			c.setup(t, dir)
			before := snapshot(t, dir)
			_, err := Write(dir, []emit.File{gen("workflows/a.yaml", "a\n")})
			var conflict *ConflictError
			if !errors.As(err, &conflict) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Write = %v, want a conflict mentioning %q", err, c.want)
			}
			if _, err := Diff(dir, []emit.File{gen("workflows/a.yaml", "a\n")}); !errors.As(err, &conflict) {
				t.Errorf("Diff = %v, want the same conflict", err)
			}
			if diff := cmp.Diff(before, snapshot(t, dir)); diff != "" {
				t.Errorf("a refused write changed the tree:\n%s", diff)
			}
		})
	}
}

func TestDiff(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "prod")
	mustWrite(t, dir, gen("a.yaml", "a\n"), gen("b.yaml", "b\n"), gen("c.yaml", "c\n"))
	put(t, filepath.Join(dir, "a.yaml"), emit.Header+"hand-edited\n", 0o644)
	if err := os.Remove(filepath.Join(dir, "b.yaml")); err != nil {
		t.Fatal(err)
	}
	put(t, filepath.Join(dir, "extra.yaml"), emit.Header+"from an older build\n", 0o644)
	before := snapshot(t, dir)
	got, err := Diff(dir, []emit.File{gen("a.yaml", "a\n"), gen("b.yaml", "b\n"), gen("c.yaml", "c\n")})
	if err != nil {
		t.Fatal(err)
	}
	want := []Change{{"a.yaml", Changed}, {"b.yaml", Added}, {"extra.yaml", Removed}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Diff (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(before, snapshot(t, dir)); diff != "" {
		t.Errorf("Diff wrote something:\n%s", diff)
	}
	// A directory that does not exist yet: everything is added.
	got, err = Diff(filepath.Join(t.TempDir(), "none"), []emit.File{gen("a.yaml", "a\n")})
	if err != nil || len(got) != 1 || got[0].Kind != Added {
		t.Errorf("Diff of a missing directory = %v, %v", got, err)
	}
}

func TestRefusesBadFiles(t *testing.T) {
	for _, files := range [][]emit.File{
		{{Path: "a.yaml", Data: []byte("no header\n")}},
		{gen("a.yaml", ""), gen("a.yaml", "")},
		{gen("../a.yaml", "")},
		{gen("/abs.yaml", "")},
		{gen("a/./b.yaml", "")},
	} {
		dir := filepath.Join(t.TempDir(), "prod")
		if _, err := Write(dir, files); err == nil || !strings.Contains(err.Error(), "platc bug") {
			t.Errorf("Write(%q) = %v, want a platc-bug error", files[0].Path, err)
		}
		if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Write(%q) created %s", files[0].Path, dir)
		}
	}
}

// A build interrupted after the new tree is complete but before the swap
// leaves the previous output exactly as it was, and no temporary tree.
func TestInterruptedBeforeSwap(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "prod")
	mustWrite(t, dir, gen("workflows/a.yaml", "old\n"), gen("workflows/b.yaml", "old\n"))
	put(t, filepath.Join(dir, "mine.txt"), "mine\n", 0o644)
	before := snapshot(t, dir)
	beforeSwap = func(tmp string) error {
		// The new tree is really there, complete, at this point.
		if data, err := os.ReadFile(filepath.Join(tmp, "workflows", "a.yaml")); err != nil || !strings.HasSuffix(string(data), "new\n") {
			t.Errorf("new tree incomplete before the swap: %q, %v", data, err)
		}
		return errors.New("interrupted")
	}
	defer func() { beforeSwap = nil }()
	if _, err := Write(dir, []emit.File{gen("workflows/a.yaml", "new\n")}); err == nil || err.Error() != "interrupted" {
		t.Fatalf("Write = %v, want the interruption", err)
	}
	if diff := cmp.Diff(before, snapshot(t, dir)); diff != "" {
		t.Errorf("the previous output changed:\n%s", diff)
	}
	if l := leftovers(t, dir); len(l) != 0 {
		t.Errorf("temporary directories left: %v", l)
	}
}

// A build killed (no deferred cleanup runs) right before the swap: the
// previous output is intact, and the next build clears the leftover
// and succeeds. The kill happens in a child process running this test.
func TestKilledBeforeSwap(t *testing.T) {
	if dir := os.Getenv("PLATC_WRITE_KILL_DIR"); dir != "" {
		beforeSwap = func(string) error { os.Exit(3); return nil }
		Write(dir, []emit.File{gen("workflows/a.yaml", "new\n")})
		return
	}
	dir := filepath.Join(t.TempDir(), "prod")
	mustWrite(t, dir, gen("workflows/a.yaml", "old\n"))
	before := snapshot(t, dir)
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledBeforeSwap$")
	cmd.Env = append(os.Environ(), "PLATC_WRITE_KILL_DIR="+dir)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if diff := cmp.Diff(before, snapshot(t, dir)); diff != "" {
		t.Errorf("the previous output changed:\n%s", diff)
	}
	if l := leftovers(t, dir); len(l) != 1 {
		t.Fatalf("want the killed build's temporary tree, got %v", l)
	}
	mustWrite(t, dir, gen("workflows/a.yaml", "new\n"))
	if l := leftovers(t, dir); len(l) != 0 {
		t.Errorf("leftovers not cleared: %v", l)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "workflows", "a.yaml")); !strings.HasSuffix(string(data), "new\n") {
		t.Errorf("a.yaml = %q", data)
	}
}

// The fallback swap (two renames) undone by a crash in between: the next
// Write puts the previous tree back before anything else.
func TestRecoverAfterCrashBetweenRenames(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "prod")
	mustWrite(t, dir, gen("workflows/a.yaml", "old\n"))
	put(t, filepath.Join(dir, "mine.txt"), "mine\n", 0o644)
	before := snapshot(t, dir)
	// What a build killed after swapByRenames' first rename leaves: the
	// journal naming its temporary tree, and the previous tree aside.
	tmp := "." + filepath.Base(dir) + tmpMarker + "123"
	aside := filepath.Join(filepath.Dir(dir), tmp+oldSuffix)
	if err := os.Rename(dir, aside); err != nil {
		t.Fatal(err)
	}
	put(t, filepath.Join(filepath.Dir(dir), "."+filepath.Base(dir)+lockSuffix), tmp+"\n", 0o644)
	lock, err := acquire(filepath.Dir(dir), filepath.Base(dir))
	if err != nil {
		t.Fatal(err)
	}
	defer lock.release()
	if err := lock.recover(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, snapshot(t, dir)); diff != "" {
		t.Errorf("the previous tree was not put back:\n%s", diff)
	}
}

// Recovery removes only what the journal names: a user's file or
// directory named like a leftover stays (issue 13: the recovery used to
// delete any ".<env>.platc-*"), and a journal line that is not one of
// the protocol's names is ignored.
func TestRecoverOnlyJournaled(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "prod")
	put(t, filepath.Join(root, ".prod.platc-notes"), "mine\n", 0o644)
	put(t, filepath.Join(root, ".prod.platc-dir", "x"), "mine\n", 0o644)
	put(t, filepath.Join(root, "victim", "x"), "mine\n", 0o644)
	put(t, filepath.Join(root, ".prod"+lockSuffix), ".prod.platc-killed\n../victim\n.prod.platc-/../victim\n/etc\n", 0o644)
	put(t, filepath.Join(root, ".prod.platc-killed", "half"), "x", 0o644)
	mustWrite(t, dir, gen("a.yaml", "a\n"))
	for _, keep := range []string{".prod.platc-notes", ".prod.platc-dir/x", "victim/x"} {
		if _, err := os.Stat(filepath.Join(root, keep)); err != nil {
			t.Errorf("%s was removed: %v", keep, err)
		}
	}
	if _, err := os.Stat(filepath.Join(root, ".prod.platc-killed")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the journaled leftover is still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, ".prod"+lockSuffix)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the lock file outlived the build: %v", err)
	}
}

// A second build while one holds the lock fails at once with BusyError
// and changes nothing.
func TestWriteBusy(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "prod")
	mustWrite(t, dir, gen("a.yaml", "old\n"))
	before := snapshot(t, dir)
	lock, err := acquire(filepath.Dir(dir), filepath.Base(dir))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Write(dir, []emit.File{gen("a.yaml", "new\n")})
	var busy *BusyError
	if !errors.As(err, &busy) || !strings.Contains(err.Error(), "another platc build is writing") {
		t.Fatalf("Write while locked = %v, want a BusyError", err)
	}
	if diff := cmp.Diff(before, snapshot(t, dir)); diff != "" {
		t.Errorf("a refused build changed the output:\n%s", diff)
	}
	lock.release()
	mustWrite(t, dir, gen("a.yaml", "new\n"))
}

// TestConcurrentWrites runs builds of two different outputs into one
// directory from separate processes, many times. Every build either
// succeeds or is refused as busy; afterwards the directory holds exactly
// one of the two outputs, whole, the user's file, and no leftover.
// Without the lock, 40 such trials lost the user's files 3 times and
// left a tree with 67 of 1,039 files once (issue 13).
func TestConcurrentWrites(t *testing.T) {
	if d := os.Getenv("PLATC_WRITE_CONCURRENT_DIR"); d != "" {
		files := manyFiles(os.Getenv("PLATC_WRITE_CONCURRENT_VERSION"))
		_, err := Write(d, files)
		var busy *BusyError
		switch {
		case errors.As(err, &busy):
			os.Exit(7)
		case err != nil:
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	if testing.Short() {
		t.Skip("spawns processes")
	}
	refused := 0
	defer func() { t.Logf("%d builds refused as busy", refused) }()
	for trial := range 20 {
		dir := filepath.Join(t.TempDir(), "prod")
		put(t, filepath.Join(dir, "README.md"), "mine\n", 0o644)
		var cmds []*exec.Cmd
		for _, v := range []string{"one", "two", "three"} {
			cmd := exec.Command(os.Args[0], "-test.run=^TestConcurrentWrites$")
			cmd.Env = append(os.Environ(), "PLATC_WRITE_CONCURRENT_DIR="+dir, "PLATC_WRITE_CONCURRENT_VERSION="+v)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			cmds = append(cmds, cmd)
		}
		ok := 0
		for _, cmd := range cmds {
			err := cmd.Wait()
			var exit *exec.ExitError
			switch {
			case err == nil:
				ok++
			case errors.As(err, &exit) && exit.ExitCode() == 7:
			default:
				t.Fatalf("trial %d: a build failed: %v", trial, err)
			}
		}
		if ok == 0 {
			t.Fatalf("trial %d: every build was refused", trial)
		}
		refused += len(cmds) - ok
		got := contents(t, dir)
		if got["README.md"] != "mine\n" {
			t.Fatalf("trial %d: the user's file is gone", trial)
		}
		want := manyFiles(strings.TrimSpace(strings.TrimPrefix(got["f/000.yaml"], emit.Header)))
		if len(got) != len(want)+1 {
			t.Fatalf("trial %d: %d files, want %d and the README", trial, len(got)-1, len(want))
		}
		for _, f := range want {
			if got[f.Path] != string(f.Data) {
				t.Fatalf("trial %d: %s is not from the same build as f/000.yaml", trial, f.Path)
			}
		}
		if l := leftovers(t, dir); len(l) != 0 {
			t.Fatalf("trial %d: leftovers %v", trial, l)
		}
	}
}

// contents maps each regular file under root to its content.
func contents(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		data, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// manyFiles is one build's output, each file saying which.
func manyFiles(version string) []emit.File {
	var out []emit.File
	for i := range 300 {
		out = append(out, gen(fmt.Sprintf("f/%03d.yaml", i), version+"\n"))
	}
	return out
}

func TestSwapByRenames(t *testing.T) {
	root := t.TempDir()
	dir, tmp := filepath.Join(root, "prod"), filepath.Join(root, ".prod.platc-1")
	put(t, filepath.Join(dir, "f"), "old", 0o644)
	put(t, filepath.Join(tmp, "f"), "new", 0o644)
	old, err := swapByRenames(tmp, dir)
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "f")); string(data) != "new" {
		t.Errorf("dir holds %q", data)
	}
	if data, _ := os.ReadFile(filepath.Join(old, "f")); string(data) != "old" {
		t.Errorf("old tree holds %q", data)
	}
}

// An output directory that is a symbolic link is refused: writing through
// it replaced the directory it pointed to, wherever that was, and removed
// the generated-looking files there (issue 21). Nothing is touched.
func TestRefusesLinkedDirectory(t *testing.T) {
	root := t.TempDir()
	real := filepath.Join(root, "real")
	mustWrite(t, real, gen("a.yaml", "a\n"))
	link := filepath.Join(root, "generated")
	if err := os.Symlink("real", link); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, root)
	var le *LinkError
	if _, err := Write(link, []emit.File{gen("b.yaml", "b\n")}); !errors.As(err, &le) || le.Path != link || le.Target != "real" {
		t.Errorf("Write through a link: %v", err)
	}
	if _, err := Diff(link, []emit.File{gen("b.yaml", "b\n")}); !errors.As(err, &le) {
		t.Errorf("Diff through a link: %v", err)
	}
	if diff := cmp.Diff(before, snapshot(t, root)); diff != "" {
		t.Errorf("something was written:\n%s", diff)
	}
}

func TestCheckPath(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "elsewhere", "prod"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("elsewhere", filepath.Join(root, "gen")); err != nil {
		t.Fatal(err)
	}
	var le *LinkError
	for _, c := range []struct {
		dir  string
		link string // "" when allowed
	}{
		{"gen/prod", "gen"},
		{"gen", "gen"},
		{"elsewhere/prod", ""},
		{"new/deeper/prod", ""}, // not there yet: created as directories
	} {
		err := CheckPath(root, filepath.Join(root, filepath.FromSlash(c.dir)))
		switch {
		case c.link == "" && err != nil:
			t.Errorf("%s: %v", c.dir, err)
		case c.link != "" && (!errors.As(err, &le) || le.Path != filepath.Join(root, c.link)):
			t.Errorf("%s: %v, want the link %s refused", c.dir, err, c.link)
		}
	}
	// The root itself is the user's choice (--out, or the work tree).
	if err := CheckPath(filepath.Join(root, "gen"), filepath.Join(root, "gen", "prod")); err != nil {
		t.Errorf("a linked root: %v", err)
	}
}

// Files platc did not write are reported by Diff, whatever their place:
// Argo CD applies what is under argocd/apps/ (issue 21).
func TestDiffForeign(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "prod")
	mustWrite(t, dir, gen("argocd/apps/a.yaml", "a\n"))
	put(t, filepath.Join(dir, "argocd", "apps", "crb.yaml"), "kind: ClusterRoleBinding\n", 0o644)
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "argocd", "link.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := Diff(dir, []emit.File{gen("argocd/apps/a.yaml", "a\n")})
	if err != nil {
		t.Fatal(err)
	}
	want := []Change{{"argocd/apps/crb.yaml", Foreign}, {"argocd/link.yaml", Foreign}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Diff (-want +got):\n%s", diff)
	}
	// Write keeps them, as always, and reports no change.
	if changes, err := Write(dir, []emit.File{gen("argocd/apps/a.yaml", "a\n")}); err != nil || len(changes) != 0 {
		t.Errorf("Write = %v, %v", changes, err)
	}
}

func TestChangeOrder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "prod")
	got := mustWrite(t, dir, gen("b/x.yaml", ""), gen("a.yaml", ""), gen("b.yaml", ""))
	paths := make([]string, len(got))
	for i, c := range got {
		paths[i] = c.Path
	}
	if !slices.IsSorted(paths) {
		t.Errorf("changes not sorted: %v", paths)
	}
}
