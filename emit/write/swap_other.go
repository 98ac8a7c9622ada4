//go:build !linux

package write

import (
	"errors"
	"os"
)

// swap puts tmp in place of dir and returns where the old tree now is.
func swap(tmp, dir string) (string, error) {
	if _, err := os.Lstat(dir); errors.Is(err, os.ErrNotExist) {
		return "", os.Rename(tmp, dir)
	}
	return swapByRenames(tmp, dir)
}

// durable makes the new tree at root durable before the swap.
func durable(root string, written []string) error { return syncFiles(root, written) }
