//go:build !unix

package bolt

import (
	"testing"
	"time"
)

// processCPU is not measured here: the cpu-µs/move metric reads 0.
func processCPU(*testing.B) time.Duration { return 0 }
