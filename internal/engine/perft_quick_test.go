package engine

import "testing"

func TestQuickPerft(t *testing.T) {
	p, _ := StartPosition(SetupStandard, Red)
	for d := 1; d <= 7; d++ {
		t.Log(d, Perft(&p, d))
	}
	p, _ = StartPosition(SetupNoDamone, Red)
	for d := 1; d <= 7; d++ {
		t.Log(d, Perft(&p, d))
	}
}
