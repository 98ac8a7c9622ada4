package write

import (
	"fmt"
	"os"
)

const oldSuffix = ".old"

// swapByRenames moves dir aside, then tmp into its place. Between the two
// renames dir does not exist; if the second fails, the first is undone,
// and if a crash comes in between, the next Write puts the old tree back
// (recoverLeftovers).
func swapByRenames(tmp, dir string) (string, error) {
	old := tmp + oldSuffix
	if err := os.Rename(dir, old); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, dir); err != nil {
		if undo := os.Rename(old, dir); undo != nil {
			return "", fmt.Errorf("%w; the previous output is in %s: rename it back to %s", err, old, dir)
		}
		return "", err
	}
	return old, nil
}
