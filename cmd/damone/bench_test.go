package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/damone-rules/damone/internal/engine"
)

func ms(v ...int) []time.Duration {
	out := make([]time.Duration, len(v))
	for i, x := range v {
		out[i] = time.Duration(x) * time.Millisecond
	}
	return out
}

// Nearest rank: the p-th percentile of n sorted values is value number
// ceil(p*n/100) (counting from 1).
func TestBenchPercentile(t *testing.T) {
	ten := ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 10)
	hundred := make([]time.Duration, 100)
	for i := range hundred {
		hundred[i] = time.Duration(i+1) * time.Millisecond // 1ms..100ms
	}
	tests := []struct {
		name     string
		sorted   []time.Duration
		perMille int
		want     time.Duration
	}{
		{"empty", nil, 500, 0},
		{"one value p50", ms(7), 500, 7 * time.Millisecond},
		{"one value p99", ms(7), 990, 7 * time.Millisecond},
		// ten values: p50 rank ceil(5.0)=5 -> 5ms; p90 rank 9 -> 9ms;
		// p99 rank ceil(9.9)=10 -> 10ms; p0 clamps to rank 1.
		{"ten p50", ten, 500, 5 * time.Millisecond},
		{"ten p90", ten, 900, 9 * time.Millisecond},
		{"ten p99", ten, 990, 10 * time.Millisecond},
		{"ten p100", ten, 1000, 10 * time.Millisecond},
		{"ten p0", ten, 0, 1 * time.Millisecond},
		// hundred values: p99 is rank exactly 99 (no float rounding up to
		// 100) -> 99ms; p50 rank 50 -> 50ms; p99.9 rank ceil(99.9)=100.
		{"hundred p50", hundred, 500, 50 * time.Millisecond},
		{"hundred p99", hundred, 990, 99 * time.Millisecond},
		{"hundred p99.9", hundred, 999, 100 * time.Millisecond},
		// three values: p50 rank ceil(1.5)=2 -> the middle one.
		{"three p50", ms(10, 20, 30), 500, 20 * time.Millisecond},
		{"four p50", ms(10, 20, 30, 40), 500, 20 * time.Millisecond},
		{"four p90", ms(10, 20, 30, 40), 900, 40 * time.Millisecond},
	}
	for _, tt := range tests {
		if got := percentile(tt.sorted, tt.perMille); got != tt.want {
			t.Errorf("%s: percentile(%v, %d) = %v, want %v", tt.name, tt.sorted, tt.perMille, got, tt.want)
		}
	}
}

func TestBenchSummarize(t *testing.T) {
	// Unsorted input; summarize sorts it. Sum 1+...+10 + 100 = 155 over 11
	// values: mean 14.0909...ms, truncated to the nanosecond.
	lat := ms(9, 100, 3, 1, 10, 2, 8, 4, 7, 5, 6)
	s := summarize(lat)
	if !slices.IsSorted(lat) {
		t.Errorf("summarize left %v unsorted", lat)
	}
	// n=11: p50 rank ceil(5.5)=6 -> 6ms; p90 rank ceil(9.9)=10 -> 10ms;
	// p99 rank ceil(10.89)=11 -> 100ms.
	want := latencySummary{n: 11, p50: 6 * time.Millisecond, p90: 10 * time.Millisecond, p99: 100 * time.Millisecond,
		max: 100 * time.Millisecond, mean: 155 * time.Millisecond / 11}
	if s != want {
		t.Errorf("summarize = %+v, want %+v", s, want)
	}
	if got := summarize(nil); got != (latencySummary{}) {
		t.Errorf("summarize(nil) = %+v, want zero", got)
	}
}

func TestBenchParseScenarios(t *testing.T) {
	got, err := parseScenarios(" watch,list-grpc,,empty-grpc,watch ")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"empty-grpc", "list-grpc", "watch"}; !slices.Equal(got, want) {
		t.Errorf("parseScenarios = %v, want %v (fixed order, no duplicates)", got, want)
	}
	for _, bad := range []string{"", ",", "list-grpc,nope"} {
		if _, err := parseScenarios(bad); err == nil {
			t.Errorf("parseScenarios(%q): no error", bad)
		}
	}
}

func TestBenchTargets(t *testing.T) {
	empty := &loadResult{CallsPerSec: 20000}
	list := &loadResult{CallsPerSec: 15000, RatioToEmpty: 0.75, P50us: 100}
	rest := &loadResult{P50us: 300, P50OverGRPC: 3.0}
	watch := &watchResult{Watchers: 1000, EventsPerSec: 120000, CutOff: 1}
	got := checkTargets(64, empty, list, rest, watch)
	// 15000 >= 10000 met; 75% < 80% not met; 3.0x <= 3x met; 120000
	// events/s but a watcher was cut off: not met.
	wantMet := []bool{true, false, true, false}
	if len(got) != len(wantMet) {
		t.Fatalf("checkTargets gave %d checks, want %d: %+v", len(got), len(wantMet), got)
	}
	for i, c := range got {
		if c.Met != wantMet[i] {
			t.Errorf("target %q (%s): met = %v, want %v", c.Target, c.Measured, c.Met, wantMet[i])
		}
	}
}

func TestBenchPositions(t *testing.T) {
	for _, text := range benchPositions {
		p, err := engine.ParsePosition(text)
		if err != nil {
			t.Errorf("%s: %v", text, err)
			continue
		}
		if p.String() != text {
			t.Errorf("%s is not canonical: %s", text, p.String())
		}
		if len(p.LegalMoves()) == 0 {
			t.Errorf("%s: no legal moves", text)
		}
	}
}

// Bad settings are refused before any load, with the flag named.
func TestBenchBadFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--rounds", "0"}, "--rounds 0: must be 1 or more"},
		{[]string{"--rest-client", "curl"}, `--rest-client "curl": want fasthttp or net/http`},
		{[]string{"--duration", "0s"}, "--duration 0s: must be above 0"},
	} {
		var out, errOut strings.Builder
		err := runBench(c.args, nil, &out, &errOut)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want it to contain %q", c.args, err, c.want)
		}
	}
}

// Samples of several rounds add up: calls over the summed measured time,
// percentiles over every latency.
func TestBenchSamplesAddUp(t *testing.T) {
	var all loadSamples
	all.add(&loadSamples{lat: ms(1, 2, 3), measured: time.Second})
	all.add(&loadSamples{lat: ms(4), errs: 2, firstErr: "boom", measured: time.Second})
	r := all.result("x")
	if r.Calls != 4 || r.CallsPerSec != 2 || r.Errors != 2 || r.FirstError != "boom" || r.P50us != 2000 || r.MaxUs != 4000 {
		t.Fatalf("got %+v; want 4 calls, 2 calls/s, 2 errors (boom), p50 2ms, max 4ms", r)
	}
}
