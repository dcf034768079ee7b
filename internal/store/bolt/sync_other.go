//go:build !linux

package bolt

import "os"

func fdatasync(f *os.File) error { return f.Sync() }

// openDirect: only Linux's O_DIRECT|O_DSYNC is used; elsewhere the log
// writes and syncs.
func openDirect(string) *os.File { return nil }
