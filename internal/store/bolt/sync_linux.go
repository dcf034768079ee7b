package bolt

import (
	"os"
	"syscall"
)

// fdatasync flushes f's data and what is needed to read it back (as
// bbolt's commits do), not its other metadata.
func fdatasync(f *os.File) error { return syscall.Fdatasync(int(f.Fd())) }
