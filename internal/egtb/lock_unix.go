//go:build unix

package egtb

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// lockBuild takes the exclusive lock of dir's builds (buildLockName), or
// fails at once if another process holds it. Held for a build's whole
// run, it makes every temporary file in dir its own, so those of a build
// that was killed can be removed.
func lockBuild(dir string) (unlock func(), err error) {
	path := filepath.Join(dir, buildLockName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%s is being built by another process (it holds %s)", dir, path)
		}
		return nil, err
	}
	return func() { f.Close() }, nil
}
