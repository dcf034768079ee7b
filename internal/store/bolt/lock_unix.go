//go:build unix

package bolt

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// lockShared takes a shared flock on f, as bbolt's read-only open does
// (bbolt's writer holds it exclusively), waiting up to wait; ErrInUse if
// the writer keeps it.
func lockShared(f *os.File, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB)
		if err == nil {
			return nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			return err
		}
		if time.Now().After(deadline) {
			return ErrInUse
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// openNoBlock makes opening a named pipe return at once instead of
// waiting for a writer; it changes nothing for a regular file.
const openNoBlock = syscall.O_NONBLOCK
