package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/games"
	"github.com/damone-rules/damone/internal/server"
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
	watch := &watchResult{Watchers: 1000, EventsPerSec: 120000, CutOff: 1, Events: 1_200_000}
	got := checkTargets(64, empty, list, rest, watch)
	// 15000 >= 10000 met; 75% < 80% not met; 3.0x <= 3x met; 120000
	// events/s but a watcher was cut off: not met; none lost or
	// duplicated: met.
	wantMet := []bool{true, false, true, false, true}
	if len(got) != len(wantMet) {
		t.Fatalf("checkTargets gave %d checks, want %d: %+v", len(got), len(wantMet), got)
	}
	for i, c := range got {
		if c.Met != wantMet[i] {
			t.Errorf("target %q (%s): met = %v, want %v", c.Target, c.Measured, c.Met, wantMet[i])
		}
	}
}

// An event lost or delivered twice fails the watch's delivery target.
func TestWatchDeliveryTarget(t *testing.T) {
	for _, c := range []struct {
		lost, dup, events int64
		met               bool
	}{{0, 0, 10, true}, {1, 0, 10, false}, {0, 1, 10, false}, {0, 0, 0, false}} {
		got := checkTargets(64, nil, nil, nil, &watchResult{Watchers: 1000, Lost: c.lost, Duplicated: c.dup, Events: c.events})
		last := got[len(got)-1]
		if last.Issue != 29 || last.Met != c.met {
			t.Errorf("%d lost, %d duplicated of %d events: %+v, want met=%v", c.lost, c.dup, c.events, last, c.met)
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
		{[]string{"--streams", "0"}, "--streams 0: must be 1 or more"},
		{[]string{"--plies", "0"}, "--plies 0: must be 1..300"},
		{[]string{"--grpc-addr", "a:1,b:2"}, "--http-addr: 1 address(es) for 2 gRPC address(es)"},
		{[]string{"--grpc-addr", "a:1,b"}, `--grpc-addr: "b": want host:port`},
		{[]string{"--metrics-addr", "m:1", "--server-pid", "7"}, "give one of them"},
	} {
		var out, errOut strings.Builder
		err := runLoadCommand(c.args, nil, &out, &errOut)
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

// The validate scenarios' answer checks pass a right answer and catch a
// wrong one, in protobuf and in the gateway's JSON (whatever its white
// space).
func TestBenchValidateAnswerChecks(t *testing.T) {
	moves := []string{"e2-d3", "d7-c6", "d3-e4"}
	good := &damonev1.ValidateGameResponse{Valid: true, Ply: 3, Moves: moves, FinalPosition: &damonev1.Position{Text: "B:x"}}
	short := &damonev1.ValidateGameResponse{Valid: true, Ply: 2, Moves: moves[:2]}
	bad := &damonev1.ValidateGameResponse{FirstIllegalPly: 3, Ply: 2, Moves: moves[:2], Message: "illegal"}
	enc := func(m interface{ MarshalVT() ([]byte, error) }) []byte {
		b, err := m.MarshalVT()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if err := checkVerdictProto(enc(good), 3); err != nil {
		t.Errorf("good verdict: %v", err)
	}
	for name, m := range map[string]*damonev1.ValidateGameResponse{"short": short, "invalid": bad} {
		if err := checkVerdictProto(enc(m), 3); err == nil {
			t.Errorf("%s verdict passed", name)
		}
	}
	stream := &damonev1.ValidateGamesResponse{Id: "17", Answer: &damonev1.ValidateGamesResponse_Result{Result: good}}
	if err := checkStreamAnswerProto(enc(stream), []byte("17"), 3); err != nil {
		t.Errorf("good stream answer: %v", err)
	}
	if err := checkStreamAnswerProto(enc(stream), []byte("1"), 3); err == nil {
		t.Error("stream answer with another id passed")
	}
	refused := &damonev1.ValidateGamesResponse{Id: "17", Answer: &damonev1.ValidateGamesResponse_Error{Error: &damonev1.ValidationError{Code: "INVALID_ARGUMENT"}}}
	if err := checkStreamAnswerProto(enc(refused), []byte("17"), 3); err == nil || !strings.Contains(err.Error(), "INVALID_ARGUMENT") {
		t.Errorf("refused stream answer: %v", err)
	}

	for _, js := range []string{
		`{"valid":true,"moves":["e2-d3","d7-c6","d3-e4"],"ply":3,"final_position":{"no_progress_plies":3}}`,
		`{"valid": true, "moves": ["e2-d3"], "ply": 3}`,
	} {
		if err := checkVerdictJSON([]byte(js), nil, 3); err != nil {
			t.Errorf("%s: %v", js, err)
		}
	}
	for _, js := range []string{
		`{"moves":["e2-d3"],"ply":3}`, // no valid
		`{"valid":true,"ply":30}`,
		`{"valid":true,"ply":2,"end_ply":3}`,
		`{"valid":false,"first_illegal_ply":3,"ply":3}`,
	} {
		if err := checkVerdictJSON([]byte(js), nil, 3); err == nil {
			t.Errorf("%s passed", js)
		}
	}
	line := `{"result": {"id": "17", "result": {"valid": true, "ply": 3}}}`
	if err := checkVerdictJSON([]byte(line), []byte("17"), 3); err != nil {
		t.Errorf("%s: %v", line, err)
	}
	for _, id := range []string{"1", "170", "7"} {
		if err := checkVerdictJSON([]byte(line), []byte(id), 3); err == nil {
			t.Errorf("%s passed for id %s", line, id)
		}
	}
	if err := checkVerdictJSON([]byte(`{"error": {"code": 3}}`), []byte("17"), 3); err == nil {
		t.Error("an error line passed")
	}
}

// The validate scenarios run against a real server (in this process, the
// rules service only), check every answer, and read the server's CPU
// time from its metrics. A functional test: the figures are not checked.
func TestBenchValidateScenarios(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server; skipped with -short")
	}
	srv, err := server.New(server.Config{
		GRPCAddr: "127.0.0.1:0", HTTPAddr: "127.0.0.1:0", MetricsAddr: "127.0.0.1:0",
		DrainTimeout: time.Second, MaxCallDuration: 10 * time.Second, MaxRequestBytes: server.DefaultMaxRequestBytes,
		MaxPerftDepth: server.DefaultMaxPerftDepth, MaxGamePlies: server.DefaultMaxGamePlies, Rules: true,
		SearchTableMB: 1, MaxAnalysisTime: time.Second, MaxAnalyses: 1, MaxEngineMoveTime: time.Second,
		Store: games.NewMemoryStore(), Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx) }()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
	}()
	g, h, m := srv.Addrs()
	var out, errOut strings.Builder
	err = runLoadCommand([]string{"--grpc-addr", g, "--http-addr", h, "--metrics-addr", m, "--json",
		"--scenarios", strings.Join(validateScenarios, ","), "--duration", "800ms", "--rounds", "2", "--warmup", "200ms",
		"--games", "8", "--plies", "40", "--streams", "2", "--in-flight", "3", "--concurrency", "4"}, nil, &out, &errOut)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	var rep benchReport
	if err := json.Unmarshal([]byte(out.String()), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if len(rep.Validate) != len(validateScenarios) {
		t.Fatalf("%d validate results, want %d:\n%s", len(rep.Validate), len(validateScenarios), out.String())
	}
	for _, r := range rep.Validate {
		if r.Errors != 0 || r.Games == 0 || r.PliesPerSec != r.GamesPerSec*40 || r.ServerNsPly <= 0 || r.CPUError != "" {
			t.Errorf("%s: %d games, %d errors (%s), %.0f plies/s, server %.0f ns/ply (%s)", r.Scenario, r.Games, r.Errors,
				r.FirstError, r.PliesPerSec, r.ServerNsPly, r.CPUError)
		}
	}
	if len(rep.Targets) != 1 || rep.Targets[0].Issue != 12 {
		t.Errorf("targets %+v, want issue 12's", rep.Targets)
	}
}
