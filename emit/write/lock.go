package write

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Two builds into one directory used to corrupt it and both exit 0: each
// one's leftover recovery deleted the other's tree in the making, and the
// recovery also deleted any user file named like a leftover (issue 13).
// So Write holds an exclusive lock for the whole protocol, and the lock
// file doubles as a journal of the temporary trees this protocol creates.
//
// The lock file is "<parent>/.<base>.platc.lock", beside the output
// directory (the directory itself is swapped away, so it cannot hold the
// lock). Before a temporary tree is created its name is written to the
// journal and synced; a build that completes clears the journal and
// removes the lock file. A build that was killed leaves the lock file and
// its entries, and the next Write (holding the lock) puts back a previous
// tree left aside by swapByRenames and removes exactly the trees the
// journal names: nothing that merely looks like a leftover is touched.
// A second build that finds the lock held fails at once with BusyError,
// writing nothing.

// lockSuffix names the lock file; it does not match the temporary trees'
// pattern.
const lockSuffix = ".platc.lock"

// maxJournal bounds how much of a journal is read; a journal holds a
// name or two.
const maxJournal = 64 << 10

// BusyError reports an output directory another build is writing.
type BusyError struct {
	Dir, Lock string
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("another platc build is writing %s now (it holds %s); run this build again when that one is done", e.Dir, e.Lock)
}

// buildLock is a held lock and its journal.
type buildLock struct {
	f            *os.File
	path         string
	parent, base string
}

// acquire takes the lock for parent/base, or returns a BusyError.
func acquire(parent, base string) (*buildLock, error) {
	path := filepath.Join(parent, "."+base+lockSuffix)
	for {
		f, err := openLockFile(path)
		if err != nil {
			return nil, err
		}
		held, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, err
		}
		if !held {
			f.Close()
			return nil, &BusyError{Dir: filepath.Join(parent, base), Lock: path}
		}
		// The holder before us removes the file after releasing it; if we
		// locked a file that is no longer at path, another build may hold
		// the one that is. Try again.
		if same, err := sameFile(f, path); err != nil || !same {
			f.Close()
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				return nil, err
			}
			continue
		}
		return &buildLock{f: f, path: path, parent: parent, base: base}, nil
	}
}

func sameFile(f *os.File, path string) (bool, error) {
	a, err := f.Stat()
	if err != nil {
		return false, err
	}
	b, err := os.Lstat(path)
	if err != nil {
		return false, err
	}
	return os.SameFile(a, b), nil
}

// release clears the journal, removes the lock file and unlocks it.
// Removing before unlocking keeps a waiting build from locking a file
// nobody will look at again (acquire checks it locked the file at path).
func (l *buildLock) release() {
	if l == nil {
		return
	}
	_ = l.f.Truncate(0)
	_ = os.Remove(l.path)
	_ = l.f.Close() // closing the descriptor releases the lock
}

// entries returns the temporary trees the journal names.
func (l *buildLock) entries() ([]string, error) {
	b, err := io.ReadAll(io.LimitReader(io.NewSectionReader(l.f, 0, maxJournal), maxJournal))
	if err != nil {
		return nil, err
	}
	prefix := "." + l.base + tmpMarker
	var out []string
	for _, line := range bytes.Split(b, []byte("\n")) {
		name := string(line)
		// Only names this protocol makes, in parent: never a path.
		if strings.HasPrefix(name, prefix) && !strings.ContainsAny(name, `/\`) && name != prefix {
			out = append(out, name)
		}
	}
	return out, nil
}

// record adds name to the journal and makes it durable, before the tree
// of that name is created.
func (l *buildLock) record(name string) error {
	if _, err := l.f.Seek(0, io.SeekEnd); err != nil {
		return err
	}
	if _, err := l.f.WriteString(name + "\n"); err != nil {
		return err
	}
	return l.f.Sync()
}

// recover cleans up after a build that was killed, from the journal: a
// build killed between the two renames of swapByRenames leaves no
// directory and the previous tree as "<tmp>.old", which is put back;
// every tree the journal names is then removed.
func (l *buildLock) recover() error {
	names, err := l.entries()
	if err != nil || len(names) == 0 {
		return err
	}
	dir := filepath.Join(l.parent, l.base)
	if _, err := os.Lstat(dir); errors.Is(err, os.ErrNotExist) {
		for _, n := range names {
			old := filepath.Join(l.parent, n+oldSuffix)
			if _, err := os.Lstat(old); err == nil {
				if err := os.Rename(old, dir); err != nil {
					return err
				}
				break
			}
		}
	}
	for _, n := range names {
		for _, p := range []string{n, n + oldSuffix} {
			if err := os.RemoveAll(filepath.Join(l.parent, p)); err != nil {
				return err
			}
		}
	}
	return l.f.Truncate(0)
}

// mkTemp creates the temporary tree for a new output, journaled first.
func (l *buildLock) mkTemp() (string, error) {
	for range 10 {
		var r [8]byte
		if _, err := rand.Read(r[:]); err != nil {
			return "", err
		}
		name := "." + l.base + tmpMarker + hex.EncodeToString(r[:])
		if err := l.record(name); err != nil {
			return "", err
		}
		p := filepath.Join(l.parent, name)
		err := os.Mkdir(p, 0o700)
		if err == nil {
			return p, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return "", err
		}
	}
	return "", fmt.Errorf("cannot create a temporary directory beside %s", filepath.Join(l.parent, l.base))
}
