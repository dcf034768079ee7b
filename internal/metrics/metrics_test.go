package metrics

import (
	"context"
	"testing"
	"time"
)

// BenchmarkObserveMovegen measures what one ObserveMovegen costs, to check
// it stays below the engine work it times.
func BenchmarkObserveMovegen(b *testing.B) {
	m := New(func(context.Context) (int, error) { return 0, nil })
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		m.ObserveMovegen("list_legal_moves", time.Since(t0))
	}
}

// counterValue reads one series of a counter from the registry.
func counterValue(t *testing.T, m *Metrics, name, op string) float64 {
	t.Helper()
	fams, err := m.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() != name {
			continue
		}
		for _, s := range f.GetMetric() {
			for _, l := range s.GetLabel() {
				if l.GetName() == "operation" && l.GetValue() == op {
					if s.GetCounter() != nil {
						return s.GetCounter().GetValue()
					}
					return float64(s.GetHistogram().GetSampleCount())
				}
			}
		}
	}
	return -1
}

// TestMovegenCounts: every engine call is counted exactly, whether or not
// it is timed; make_move calls are counted and timed each time; unknown
// operations change nothing.
func TestMovegenCounts(t *testing.T) {
	m := New(func(context.Context) (int, error) { return 0, nil })
	for i := 0; i < 1000; i++ {
		m.CountMovegen("list_legal_moves")
		if m.SampleMovegen() {
			m.ObserveMovegen("list_legal_moves", time.Microsecond)
		}
	}
	for i := 0; i < 7; i++ {
		m.MoveChecked(time.Millisecond)
	}
	m.CountMovegen("no_such_operation")
	if got := counterValue(t, m, "damone_movegen_total", "list_legal_moves"); got != 1000 {
		t.Errorf("damone_movegen_total{list_legal_moves} = %v, want 1000", got)
	}
	// 1 in 8 sampled: 125 expected; 60..190 is more than six standard
	// deviations (sqrt(1000 * 1/8 * 7/8) = 10.5) either side.
	if got := counterValue(t, m, "damone_movegen_duration_seconds", "list_legal_moves"); got < 60 || got > 190 {
		t.Errorf("timed list_legal_moves calls = %v, want about 125 of 1000", got)
	}
	if got := counterValue(t, m, "damone_movegen_total", "make_move"); got != 7 {
		t.Errorf("damone_movegen_total{make_move} = %v, want 7", got)
	}
	if got := counterValue(t, m, "damone_movegen_duration_seconds", "make_move"); got != 7 {
		t.Errorf("timed make_move calls = %v, want every one of 7", got)
	}
	if got := counterValue(t, m, "damone_movegen_total", "no_such_operation"); got != -1 {
		t.Errorf("an unknown operation made a series: %v", got)
	}
	for _, op := range []string{"apply_move", "perft", "validate_game"} {
		if got := counterValue(t, m, "damone_movegen_total", op); got != 0 {
			t.Errorf("damone_movegen_total{%s} = %v before any call, want a series at 0", op, got)
		}
	}
}
