//go:build !unix

package bolt

import (
	"os"
	"time"
)

// lockShared does nothing where flock does not exist: bbolt's own
// read-only open still takes its lock before the file is read through it.
func lockShared(*os.File, time.Duration) error { return nil }

// openNoBlock: no named pipes to wait on here.
const openNoBlock = 0
