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
