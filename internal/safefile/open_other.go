//go:build !unix

package safefile

import (
	"os"
)

// open refuses anything but a regular file before opening it. Without
// O_NONBLOCK there is a window between the check and the open; platc's
// builds run on Linux, where open_unix.go closes it.
func open(path string) (*os.File, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, &NotRegularError{Path: path, Mode: info.Mode()}
	}
	return os.Open(path)
}
