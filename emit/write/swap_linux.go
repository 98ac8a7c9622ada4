package write

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// swap puts tmp in place of dir and returns where the old tree now is.
// When dir exists, renameat2(RENAME_EXCHANGE) swaps both in one atomic
// step; file systems without it fall back to two renames.
func swap(tmp, dir string) (string, error) {
	if _, err := os.Lstat(dir); errors.Is(err, os.ErrNotExist) {
		return "", os.Rename(tmp, dir)
	}
	err := unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, dir, unix.RENAME_EXCHANGE)
	if err == nil {
		return tmp, nil
	}
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EOPNOTSUPP) {
		return swapByRenames(tmp, dir)
	}
	return "", &os.LinkError{Op: "renameat2", Old: tmp, New: dir, Err: err}
}

// durable makes the new tree at root durable before the swap: one
// syncfs(2) flushes every file and directory written on that file system,
// which on a large platform is far cheaper than an fsync per file (10,000
// of them took seconds). Where syncfs is missing, each file and directory
// is synced instead.
func durable(root string, written []string) error {
	f, err := os.Open(root)
	if err != nil {
		return err
	}
	err = unix.Syncfs(int(f.Fd()))
	f.Close()
	if errors.Is(err, unix.ENOSYS) {
		return syncFiles(root, written)
	}
	return err
}
