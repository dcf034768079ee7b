package engine

import (
	"testing"
	"time"
)

// PerftUntil counts what Perft counts, and gives up at once when told to.
func TestPerftUntil(t *testing.T) {
	p, _ := StartPosition(SetupStandard, Red)
	for depth := range 6 {
		n, ok := PerftUntil(&p, depth, make(chan struct{}))
		if want := Perft(&p, depth); !ok || n != want {
			t.Errorf("depth %d: %d, %v; want %d (Perft's), true", depth, n, ok, want)
		}
	}
	// Depth 11 takes minutes; a closed channel stops it before 3 plies.
	done := make(chan struct{})
	close(done)
	t0 := time.Now()
	if _, ok := PerftUntil(&p, 11, done); ok {
		t.Error("PerftUntil with done closed counted to the end")
	}
	// Closed while counting.
	done = make(chan struct{})
	time.AfterFunc(20*time.Millisecond, func() { close(done) })
	if _, ok := PerftUntil(&p, 11, done); ok {
		t.Error("PerftUntil(11) counted to the end")
	}
	if took := time.Since(t0); took > time.Second {
		t.Errorf("PerftUntil took %v to stop; want milliseconds", took)
	}
}
