package bolt

import (
	"os"
	"syscall"
)

// fdatasync flushes f's data and what is needed to read it back (as
// bbolt's commits do), not its other metadata.
func fdatasync(f *os.File) error { return syscall.Fdatasync(int(f.Fd())) }

// openDirect opens path for writes that bypass the page cache and are
// durable when they return (O_DIRECT|O_DSYNC, the guarantee of a write
// then an fdatasync): on a disk whose syncs cost by the request, one
// request in place of two. Its writes must start at, span and come from
// memory aligned to walBlock bytes (wal.align). It returns nil where the file
// system refuses either flag (tmpfs): the caller writes and syncs.
func openDirect(path string) *os.File {
	f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_DIRECT|syscall.O_DSYNC, 0)
	if err != nil {
		return nil
	}
	return f
}
