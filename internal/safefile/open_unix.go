//go:build unix

package safefile

import (
	"os"
	"syscall"
)

// open opens path for reading without blocking: opening a FIFO that no
// one writes to would otherwise wait forever, and O_NOCTTY keeps a
// terminal device from becoming the controlling terminal. Regular files
// read the same with O_NONBLOCK.
func open(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
}
