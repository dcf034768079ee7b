package main

// Every numeric flag of `damone serve` is honoured exactly over its whole
// accepted range, or refused at start with a usage error (exit 2) naming
// the flag and the range (issue 13, departure 7). Values just beyond each
// end are refused by run (no server starts); values at each end start the
// real binary, and the setting is checked where it acts: the limit a call
// meets, its `maximum`, the call it lets through.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
)

// The accepted range of each numeric flag, as its usage error states it.
var serveFlagRanges = []struct {
	flag    string
	refused []string // values just beyond the ends
	rng     string   // what the usage error says of the range
}{
	{"--max-perft-depth", []string{"0", "13"}, "1..12"},
	{"--max-game-plies", []string{"0", "1000001"}, "1..1000000"},
	{"--max-position-plies", []string{"-1", "100001"}, "0..100000"},
	{"--max-request-bytes", []string{"1023", "1073741825"}, "1024..1073741824"},
	{"--max-header-bytes", []string{"4095", "16777217"}, "4096..16777216"},
	{"--max-games", []string{"-1"}, "0 or more"},
	{"--max-watchers", []string{"-1"}, "0 or more"},
	{"--max-watchers-per-game", []string{"-1"}, "0 or more"},
	{"--watch-buffer", []string{"0", "65537"}, "1..65536"},
	{"--search-table-mb", []string{"0", "4097"}, "1..4096"},
	{"--gc-percent", []string{"24", "2001"}, "25..2000"},
	{"--max-analyses", []string{"0", "-1"}, "at least 1"},
	{"--drain-timeout", []string{"0s", "-1ns"}, "above 0"},
	{"--max-call-duration", []string{"0s", "-1ns"}, "above 0"},
	{"--max-streams-per-connection", []string{"0", "100001"}, "1..100000"},
	{"--max-analysis-time", []string{"0s", "-1ns"}, "above 0"},
	{"--max-engine-move-time", []string{"0s", "-1ns"}, "above 0"},
	{"--max-engine-queue", []string{"-1", "100001"}, "0..100000"},
	{"--min-clock-time", []string{"0s", "-1ns"}, "above 0"},
	{"--first-move-time", []string{"999ms", "87600h0m0.000000001s"}, "1s..87600h"},
	{"--max-clock-time", []string{"500ms", "87600h0m0.000000001s"}, "at least --min-clock-time and at most 87600h"},
	{"--max-connection-age", []string{"-1ns", "999ms", "8760h0m0.000000001s"}, "0 (never) or 1s..8760h"},
	{"--grpc-addr", []string{"127.0.0.1:65536", "127.0.0.1:-1"}, "0..65535"},
	{"--http-addr", []string{"127.0.0.1:65536"}, "0..65535"},
	{"--metrics-addr", []string{"127.0.0.1:65536"}, "0..65535"},
}

// TestServeFlagRangesInREADME: where README's table of serve settings
// states a flag's range (a..b), it is the range the flag has. (A flag
// whose row states none is logged: README should give each.)
func TestServeFlagRangesInREADME(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if m := regexp.MustCompile("^\\| `(--[a-z-]+)` \\|").FindStringSubmatch(line); m != nil {
			rows[m[1]] = line
		}
	}
	rangeRE := regexp.MustCompile(`\b-?\d+\.\.\d+\b`)
	for _, f := range serveFlagRanges {
		row, ok := rows[f.flag]
		if !ok {
			t.Errorf("README's table of settings has no row %s", f.flag)
			continue
		}
		stated := rangeRE.FindString(row)
		if stated == "" {
			t.Logf("README does not state the range of %s (%s)", f.flag, f.rng)
			continue
		}
		if !slices.Contains(rangeRE.FindAllString(f.rng, -1), stated) {
			t.Errorf("README states %s for %s; the flag takes %s", stated, f.flag, f.rng)
		}
	}
}

func TestServeFlagRangesRefused(t *testing.T) {
	svSkip(t)
	t.Parallel()
	for _, f := range serveFlagRanges {
		for _, v := range f.refused {
			t.Run(f.flag+"="+v, func(t *testing.T) {
				t.Parallel()
				// The binary, on free ports: a value wrongly accepted starts
				// a server, which the timeout ends.
				args := []string{"serve", "--store", "memory", "--grpc-addr", "127.0.0.1:0", "--http-addr", "127.0.0.1:0",
					"--metrics-addr", "127.0.0.1:0", f.flag, v}
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				cmd := exec.CommandContext(ctx, svBin, args...)
				cmd.Env = svEnv()
				var stderr strings.Builder
				cmd.Stderr = &stderr
				err := cmd.Run()
				var exit *exec.ExitError
				if ctx.Err() != nil || !errors.As(err, &exit) || exit.ExitCode() != 2 {
					t.Fatalf("%v (stderr %.300q); want exit 2, a usage error", err, stderr.String())
				}
				if msg := stderr.String(); !strings.Contains(msg, f.flag) || !strings.Contains(msg, f.rng) {
					t.Errorf("usage error %q; want it to name %s and its range %s", msg, f.flag, f.rng)
				}
			})
		}
	}
}

// sfPerft asks for a perft of svOneMoveWin at depth: its only move c4xa6
// leaves Black without a piece, so it counts 1 at depth 1 and 0 below.
func sfPerft(ctx context.Context, s *svServer, depth int32) error {
	r, err := s.rules.Perft(ctx, &damonev1.PerftRequest{Position: &damonev1.Position{Text: svOneMoveWin}, Depth: depth})
	if want := int64(min(depth, 2) % 2); err == nil && r.GetNodes() != want {
		return fmt.Errorf("perft(%d) of R:RPc4:BPb5:0 counted %d, want %d", depth, r.GetNodes(), want)
	}
	return err
}

func TestServeFlagRangesHonoured(t *testing.T) {
	svSkip(t)
	t.Parallel()
	ctx := svCtx(t)
	limit := func(t *testing.T, err error, name, maximum string) {
		t.Helper()
		svWantStatus(t, err, codes.ResourceExhausted, "LIMIT_EXCEEDED", "", map[string]string{"limit": name, "maximum": maximum})
	}
	ok := func(t *testing.T, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Run("max-perft-depth 1", func(t *testing.T) {
		t.Parallel()
		s := svStart(t, "--max-perft-depth", "1")
		ok(t, sfPerft(ctx, s, 1))
		limit(t, sfPerft(ctx, s, 2), "perft_depth", "1")
	})
	t.Run("max-perft-depth 12", func(t *testing.T) {
		t.Parallel()
		s := svStart(t, "--max-perft-depth", "12")
		ok(t, sfPerft(ctx, s, 12))
		limit(t, sfPerft(ctx, s, 13), "perft_depth", "12")
	})
	// At the deepest perft allowed, the call's deadline still holds: the
	// server stops counting (rules_service.proto), not one first move's
	// subtree later (at depth 11 each takes about half a minute).
	t.Run("max-perft-depth 12 within max-call-duration", func(t *testing.T) {
		t.Parallel()
		s := svStart(t, "--max-perft-depth", "12", "--max-call-duration", "300ms")
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		t0 := time.Now()
		_, err := s.rules.Perft(cctx, &damonev1.PerftRequest{Position: &damonev1.Position{Text: svStartPos}, Depth: 11})
		if took := time.Since(t0); took > 2*time.Second {
			t.Errorf("perft(11) past a deadline of 300ms answered after %v (%v); want DEADLINE_EXCEEDED from the server at once", took.Round(time.Millisecond), err)
		}
		svWantStatus(t, err, codes.DeadlineExceeded, "", "", nil)
	})
	validate := func(s *svServer, moves int) error {
		ms := make([]string, moves)
		for i := range ms {
			ms[i] = "zz" // not notation: the verdict is "illegal at ply 1"
		}
		r, err := s.rules.ValidateGame(ctx, &damonev1.ValidateGameRequest{Moves: ms})
		if err == nil && (r.GetValid() || r.GetFirstIllegalPly() != 1) {
			return errors.New("the verdict on a game of 'zz' is not: illegal at ply 1")
		}
		return err
	}
	t.Run("max-game-plies 1", func(t *testing.T) {
		t.Parallel()
		s := svStart(t, "--max-game-plies", "1")
		ok(t, validate(s, 1))
		limit(t, validate(s, 2), "game_plies", "1")
	})
	t.Run("max-game-plies 1000000", func(t *testing.T) {
		t.Parallel()
		s := svStart(t, "--max-game-plies", "1000000", "--max-request-bytes", "16777216")
		ok(t, validate(s, 1000000))
		limit(t, validate(s, 1000001), "game_plies", "1000000")
	})
	// ValidateGame's positions: n plies of two Damones stepping to and fro
	// (no draw rule on), all legal.
	positions := func(s *svServer, n int, opts ...grpc.CallOption) error {
		steps := []string{"h1-g2", "a8-b7", "g2-h1", "b7-a8"}
		ms := make([]string, n)
		for i := range ms {
			ms[i] = steps[i%4]
		}
		r, err := s.rules.ValidateGame(ctx, &damonev1.ValidateGameRequest{IncludePositions: true, Moves: ms, Variant: &damonev1.Variant{
			Start:          &damonev1.Variant_StartPosition{StartPosition: &damonev1.Position{Text: "R:RMh1:BMa8:0"}},
			RepetitionDraw: proto.Bool(false), NoProgressLimit: proto.Int32(0)}}, opts...)
		if err == nil && (!r.GetValid() || len(r.GetPositions()) != n) {
			return fmt.Errorf("verdict valid %v with %d positions; want valid with %d", r.GetValid(), len(r.GetPositions()), n)
		}
		return err
	}
	t.Run("max-position-plies 0", func(t *testing.T) {
		t.Parallel()
		s := svStart(t, "--max-position-plies", "0")
		ok(t, positions(s, 0))
		limit(t, positions(s, 1), "position_plies", "0")
	})
	t.Run("max-position-plies 100000", func(t *testing.T) {
		t.Parallel()
		s := svStart(t, "--max-position-plies", "100000", "--max-game-plies", "200000", "--max-request-bytes", "16777216")
		ok(t, positions(s, 100000, grpc.MaxCallRecvMsgSize(256<<20)))
		limit(t, positions(s, 100001), "position_plies", "100000")
	})
	// A ValidateGame request of exactly n bytes in protobuf (one move of
	// n-3 bytes: its tag and a 2-byte length).
	sized := func(n int) *damonev1.ValidateGameRequest {
		r := &damonev1.ValidateGameRequest{Moves: []string{strings.Repeat("x", n-3)}}
		if proto.Size(r) != n {
			t.Fatalf("request of %d bytes, want %d", proto.Size(r), n)
		}
		return r
	}
	t.Run("max-request-bytes 1024", func(t *testing.T) {
		t.Parallel()
		s := svStart(t, "--max-request-bytes", "1024")
		_, err := s.rules.ValidateGame(ctx, sized(1024))
		ok(t, err)
		_, err = s.rules.ValidateGame(ctx, sized(1025))
		limit(t, err, "request_bytes", "1024")
		// REST: the body's bytes.
		body := func(n int) map[string]any { return map[string]any{"moves": []string{strings.Repeat("x", n-14)}} }
		if code, b := svHTTP(t, "POST", s.url("/v1/rules:validateGame"), "", body(1024)); code != 200 {
			t.Errorf("REST body of 1024 bytes: HTTP %d %s", code, b)
		}
		if code, b := svHTTP(t, "POST", s.url("/v1/rules:validateGame"), "", body(1025)); code != 413 {
			t.Errorf("REST body of 1025 bytes: HTTP %d %s; want 413", code, b)
		}
	})
	t.Run("max-request-bytes 1073741824", func(t *testing.T) {
		t.Parallel()
		s := svStart(t, "--max-request-bytes", "1073741824")
		_, err := s.rules.ValidateGame(ctx, sized(1024)) // and above the default of 1 MiB:
		ok(t, err)
		_, err = s.rules.ValidateGame(ctx, &damonev1.ValidateGameRequest{Moves: []string{strings.Repeat("x", 2<<20)}})
		ok(t, err)
		if code, b := svHTTP(t, "POST", s.url("/v1/rules:validateGame"), "", map[string]any{"moves": []string{"e2-d3"}}); code != 200 {
			t.Errorf("REST: HTTP %d %s", code, b)
		}
	})
	create := func(s *svServer) (*damonev1.CreateGameResponse, error) {
		return s.games.CreateGame(ctx, &damonev1.CreateGameRequest{})
	}
	for _, v := range []string{"0", "9223372036854775807"} {
		t.Run("max-games "+v+" (no limit)", func(t *testing.T) {
			t.Parallel()
			s := svStart(t, "--max-games", v)
			for range 3 {
				_, err := create(s)
				ok(t, err)
			}
		})
	}
	t.Run("max-games 1", func(t *testing.T) {
		t.Parallel()
		s := svStart(t, "--max-games", "1")
		_, err := create(s)
		ok(t, err)
		_, err = create(s)
		limit(t, err, "games", "1")
	})
	// watchers opens n watch streams on game name and returns the error
	// of the last one's first receive (each gets game_created first).
	watchers := func(s *svServer, name string, n int) error {
		var err error
		for i := range n {
			wctx, cancel := context.WithCancel(ctx)
			t.Cleanup(cancel)
			st, serr := s.games.WatchGame(wctx, &damonev1.WatchGameRequest{Name: name})
			if serr != nil {
				return serr
			}
			ev, rerr := st.Recv()
			if i == n-1 {
				err = rerr
			} else if rerr != nil || ev.GetSequence() != 1 {
				return rerr
			}
		}
		return err
	}
	for _, c := range []struct {
		flag, value string
		n           int
		limit       string
	}{
		{"--max-watchers", "1", 2, "watchers"},
		{"--max-watchers-per-game", "1", 2, "watchers_per_game"},
		{"--max-watchers", "0", 3, ""},
		{"--max-watchers-per-game", "0", 3, ""},
		{"--max-watchers", "9223372036854775807", 3, ""},
		{"--watch-buffer", "1", 2, ""},
		{"--watch-buffer", "65536", 2, ""},
	} {
		t.Run(c.flag+" "+c.value, func(t *testing.T) {
			t.Parallel()
			s := svStart(t, c.flag, c.value)
			g, err := create(s)
			ok(t, err)
			err = watchers(s, g.GetGame().GetName(), c.n)
			if c.limit == "" {
				ok(t, err)
				return
			}
			limit(t, err, c.limit, c.value)
		})
	}
	// Engine moves in games, with one search at a time: the first game the
	// engine opens searches (a minute), the next ones wait, up to
	// --max-engine-queue; beyond it the engine's next move is refused,
	// a CreateGame as a player's move, and the game is unchanged.
	engineGame := func(s *svServer, side damonev1.Side) (*damonev1.CreateGameResponse, error) {
		return s.games.CreateGame(ctx, &damonev1.CreateGameRequest{Game: &damonev1.Game{EngineOpponent: &damonev1.EngineOpponent{
			Side: side, Strength: &damonev1.EngineOpponent_MoveTime{MoveTime: durationpb.New(time.Minute)}}}})
	}
	for _, c := range []struct {
		value   string
		waiting int // engine moves queued before the refusal
	}{{"0", 0}, {"100000", 3}} {
		t.Run("max-engine-queue "+c.value, func(t *testing.T) {
			t.Parallel()
			s := svStart(t, "--max-engine-queue", c.value, "--max-analyses", "1", "--max-engine-move-time", "1m")
			player, err := engineGame(s, damonev1.Side_SIDE_BLACK) // Red, the player, moves first
			ok(t, err)
			for range 1 + c.waiting {
				_, err := engineGame(s, damonev1.Side_SIDE_RED)
				ok(t, err)
			}
			if c.value == "0" {
				_, err = engineGame(s, damonev1.Side_SIDE_RED)
				limit(t, err, "engine_queue", "0")
				name := player.GetGame().GetName()
				_, err = s.games.MakeMove(svAuth(ctx, player.GetRedToken()), &damonev1.MakeMoveRequest{Name: name, Move: "e2-d3"})
				limit(t, err, "engine_queue", "0")
				g, err := s.games.GetGame(ctx, &damonev1.GetGameRequest{Name: name})
				ok(t, err)
				if g.GetPly() != 0 || g.GetEtag() != player.GetGame().GetEtag() {
					t.Errorf("the refused move changed the game: ply %d etag %s, was 0 and %s", g.GetPly(), g.GetEtag(), player.GetGame().GetEtag())
				}
			}
		})
	}
	analyze := func(s *svServer, depth int32) error {
		st, err := damonev1.NewAnalysisServiceClient(s.conn).AnalyzePosition(ctx, &damonev1.AnalyzePositionRequest{
			Position: &damonev1.Position{Text: svStartPos}, Limit: &damonev1.AnalyzePositionRequest_Depth{Depth: depth}})
		if err != nil {
			return err
		}
		for {
			m, err := st.Recv()
			if err != nil {
				return err
			}
			if m.GetFinal() {
				if m.GetBestMove().GetNotation() == "" {
					return errors.New("final message without a best move")
				}
				return nil
			}
		}
	}
	for _, args := range [][]string{
		{"--search-table-mb", "1"}, {"--gc-percent", "25"}, {"--gc-percent", "2000"},
		{"--max-analyses", "9223372036854775807"}, {"--max-engine-move-time", "1ns"},
		{"--max-engine-move-time", "2562047h47m16.854775807s"}, {"--max-call-duration", "2562047h47m16.854775807s"},
		{"--drain-timeout", "2562047h47m16.854775807s"}, {"--max-connection-age", "0"}, {"--max-connection-age", "1s"},
		{"--max-connection-age", "8760h"}, {"--max-analysis-time", "2562047h47m16.854775807s"},
		{"--search-table-mb", "4096"}, // allocated by the first analysis: none here (it takes seconds)
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			s := svStart(t, args...)
			for range 2 {
				_, err := s.rules.ListLegalMoves(ctx, &damonev1.ListLegalMovesRequest{Position: &damonev1.Position{Text: svStartPos}})
				ok(t, err)
				if args[0] != "--search-table-mb" || args[1] != "4096" {
					ok(t, analyze(s, 2))
				}
			}
		})
	}
	t.Run("max-call-duration 1ns", func(t *testing.T) {
		t.Parallel()
		s := svStart(t, "--max-call-duration", "1ns")
		// Perft looks at its deadline before each first move: it is past.
		_, err := s.rules.Perft(ctx, &damonev1.PerftRequest{Position: &damonev1.Position{Text: svStartPos}, Depth: 2})
		if status.Code(err) != codes.DeadlineExceeded {
			t.Errorf("perft with a call deadline of 1ns: %v; want DEADLINE_EXCEEDED", err)
		}
	})
	t.Run("max-analysis-time 1ns", func(t *testing.T) {
		t.Parallel()
		s := svStart(t, "--max-analysis-time", "1ns")
		ok(t, analyze(s, 64)) // stopped by the cap, with a best move
		st, err := damonev1.NewAnalysisServiceClient(s.conn).AnalyzePosition(ctx, &damonev1.AnalyzePositionRequest{
			Position: &damonev1.Position{Text: svStartPos}, Limit: &damonev1.AnalyzePositionRequest_MoveTime{MoveTime: durationpb.New(2 * time.Nanosecond)}})
		if err == nil {
			_, err = st.Recv()
		}
		limit(t, err, "analysis_time", "1ns")
	})
	// The grace a connection past its max age gives an analysis is
	// --max-analysis-time and 1s (README): with the largest time, an
	// analysis outlives the connection's age.
	t.Run("max-analysis-time largest with max-connection-age 1s", func(t *testing.T) {
		t.Parallel()
		s := svStart(t, "--max-analysis-time", "2562047h47m16.854775807s", "--max-connection-age", "1s", "--drain-timeout", "1ns")
		actx, cancel := context.WithCancel(ctx)
		defer cancel()
		st, err := damonev1.NewAnalysisServiceClient(s.conn).AnalyzePosition(actx, &damonev1.AnalyzePositionRequest{
			Position: &damonev1.Position{Text: svStartPos}, Limit: &damonev1.AnalyzePositionRequest_Infinite{Infinite: true}})
		ok(t, err)
		var mu sync.Mutex
		var streamErr error
		done := make(chan struct{})
		go func() {
			defer close(done)
			for {
				if _, err := st.Recv(); err != nil {
					mu.Lock()
					streamErr = err
					mu.Unlock()
					return
				}
			}
		}()
		select {
		case <-done:
			t.Fatalf("the analysis ended at %v, before the connection's grace: %v", time.Now(), streamErr)
		case <-time.After(2500 * time.Millisecond):
		}
		cancel()
		<-done
		if status.Code(streamErr) != codes.Canceled && !errors.Is(streamErr, io.EOF) {
			t.Errorf("the analysis ended with %v; want it cancelled by the client", streamErr)
		}
	})
	t.Run("drain-timeout 1ns", func(t *testing.T) {
		t.Parallel()
		s := svStart(t, "--drain-timeout", "1ns")
		_, err := create(s)
		ok(t, err)
		s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.exited:
			if s.waitErr != nil {
				t.Errorf("exit after SIGTERM: %v", s.waitErr)
			}
		case <-time.After(10 * time.Second):
			t.Error("no exit within 10s of SIGTERM")
		}
	})
	// The bound on streams per connection is advertised in the server's
	// settings and, at 1, a second call at once on a connection is
	// refused, while calls one after another are served.
	for _, v := range []uint32{1, 100000} {
		t.Run(fmt.Sprint("max-streams-per-connection ", v), func(t *testing.T) {
			t.Parallel()
			s := svStart(t, "--max-streams-per-connection", fmt.Sprint(v))
			h := h2Dial(t, s.grpcAddr)
			if got := h.settings[http2.SettingMaxConcurrentStreams]; got != v {
				t.Errorf("SETTINGS_MAX_CONCURRENT_STREAMS %d, want %d", got, v)
			}
			for range 3 {
				_, err := s.rules.ListLegalMoves(ctx, &damonev1.ListLegalMovesRequest{Position: &damonev1.Position{Text: svStartPos}})
				ok(t, err)
			}
			if v != 1 {
				return
			}
			h.open(1, damonev1.RulesService_ListLegalMoves_FullMethodName)
			h.open(3, damonev1.RulesService_ListLegalMoves_FullMethodName)
			f := h.next()
			if rst, isRST := f.(*http2.RSTStreamFrame); !isRST || rst.StreamID != 3 || rst.ErrCode != http2.ErrCodeRefusedStream {
				t.Errorf("a second stream at once under a bound of 1: %v; want stream 3 refused (RST_STREAM REFUSED_STREAM)", f)
			}
		})
	}
}
