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

// TestEngineQueueMetrics: the engine queue's waits land in the buckets
// of damone_engine_queue_wait_seconds (sum and count exact), and
// damone_engine_moves_queued is the last length reported.
func TestEngineQueueMetrics(t *testing.T) {
	m := New(func(context.Context) (int, error) { return 0, nil })
	for _, d := range []time.Duration{0, 1500 * time.Microsecond, 3 * time.Second} {
		m.EngineWaited(d)
	}
	m.EngineQueueLength(5)
	m.EngineQueueLength(2)
	fams, err := m.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var hist, gauge bool
	for _, f := range fams {
		switch f.GetName() {
		case "damone_engine_queue_wait_seconds":
			hist = true
			h := f.GetMetric()[0].GetHistogram()
			if h.GetSampleCount() != 3 || h.GetSampleSum() != 3.0015 {
				t.Errorf("wait histogram: %d samples summing to %v s, want 3 summing to 3.0015", h.GetSampleCount(), h.GetSampleSum())
			}
			// Buckets double from 1 ms: 0 is in le=0.001, 1.5 ms in
			// le=0.002, 3 s in le=4.096.
			want := map[float64]uint64{0.001: 1, 0.002: 2, 2.048: 2, 4.096: 3}
			for _, b := range h.GetBucket() {
				if n, ok := want[b.GetUpperBound()]; ok && b.GetCumulativeCount() != n {
					t.Errorf("bucket le=%v holds %d waits, want %d", b.GetUpperBound(), b.GetCumulativeCount(), n)
				}
			}
		case "damone_engine_moves_queued":
			gauge = true
			if v := f.GetMetric()[0].GetGauge().GetValue(); v != 2 {
				t.Errorf("damone_engine_moves_queued = %v, want 2", v)
			}
		}
	}
	if !hist || !gauge {
		t.Errorf("the registry lacks the wait histogram (%v) or the queue gauge (%v)", hist, gauge)
	}
}

// TestRequestTimeouts: damone_request_arrival_timeouts_total has its two
// series at 0 before any timeout, counts each transport on its own, and
// ignores an unknown transport.
func TestRequestTimeouts(t *testing.T) {
	m := New(func(context.Context) (int, error) { return 0, nil })
	value := func(transport string) float64 {
		t.Helper()
		fams, err := m.Registry.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fams {
			if f.GetName() != "damone_request_arrival_timeouts_total" {
				continue
			}
			for _, s := range f.GetMetric() {
				if l := s.GetLabel(); len(l) == 1 && l[0].GetName() == "transport" && l[0].GetValue() == transport {
					return s.GetCounter().GetValue()
				}
			}
		}
		return -1
	}
	if g, r := value(TransportGRPC), value(TransportREST); g != 0 || r != 0 {
		t.Fatalf("before any timeout: grpc %v, rest %v; want both series at 0", g, r)
	}
	for range 3 {
		m.RequestTimedOut(TransportGRPC)
	}
	m.RequestTimedOut(TransportREST)
	m.RequestTimedOut("smtp")
	if g, r, o := value(TransportGRPC), value(TransportREST), value("smtp"); g != 3 || r != 1 || o != -1 {
		t.Errorf("after 3 gRPC, 1 REST and 1 unknown: grpc %v, rest %v, smtp %v; want 3, 1 and no series", g, r, o)
	}
}
