package main

// End-to-end tests of `damone serve` on the in-memory store: the real
// binary, started on free loopback ports, used as a client would use it
// (generated gRPC clients, plain net/http + encoding/json for REST).
// Expected values come from RULES.md, docs/api.md, error_reason.proto and
// an independent replay with the engine, never from the server's output.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
	"github.com/damone-rules/damone/internal/engine"
)

// The binary under test, built once by TestMain.
var (
	svBin      string
	svBuildErr error
)

func TestMain(m *testing.M) {
	flag.Parse()
	var dir string
	if !testing.Short() {
		dir, svBuildErr = os.MkdirTemp("", "damone-serve-e2e")
		if svBuildErr == nil {
			svBin = filepath.Join(dir, "damone")
			if out, err := exec.Command("go", "build", "-o", svBin, ".").CombinedOutput(); err != nil {
				svBuildErr = fmt.Errorf("go build: %v\n%s", err, out)
			}
		}
	}
	code := m.Run()
	if dir != "" {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

// svStartPos is the standard start (RULES.md, Sides and setup; notation.md).
const svStartPos = "R:RMh1,Df1,Dh3,Pd1,Pe2,Pf3,Pg4,Ph5:BMa8,Da6,Dc8,Pa4,Pb5,Pc6,Pd7,Pe8:0"

// svOpening is Red's legal moves at the start, worked out by hand from
// RULES.md (see internal/games/service_test.go for the derivation), sorted.
const svOpening = "d1-c2,e2-d3,f1-g2,f3-e4,g4-f5,h1-g2,h3-g2,h5-g6"

// svOneMoveWin: Red's only move c4xa6 is a compulsory capture of Black's
// last piece, so the game ends at once with a Red win.
const svOneMoveWin = "R:RPc4:BPb5:0"

func svSkip(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end test of damone serve; skipped with -short")
	}
	if svBuildErr != nil {
		t.Fatal(svBuildErr)
	}
}

// svServer is one running `damone serve --store memory`.
type svServer struct {
	t                               *testing.T
	cmd                             *exec.Cmd
	grpcAddr, httpAddr, metricsAddr string
	conn                            *grpc.ClientConn
	games                           damonev1.GameServiceClient
	rules                           damonev1.RulesServiceClient
	exited                          chan struct{}
	waitErr                         error
	logMu                           sync.Mutex
	log                             bytes.Buffer
}

// svEnv is the environment without any DAMONE_ setting of the caller's,
// and without the default endgame tables (whose background build would
// cost every test a core): extra may turn them back on.
func svEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DAMONE_") {
			env = append(env, kv)
		}
	}
	return append(append(env, "DAMONE_EGTB_PIECES=0"), extra...)
}

func svStart(t *testing.T, args ...string) *svServer {
	t.Helper()
	return svStartEnv(t, nil, args...)
}

// svStartEnv is svStart with env added to svEnv's.
func svStartEnv(t *testing.T, env []string, args ...string) *svServer {
	t.Helper()
	svSkip(t)
	all := append([]string{"serve", "--grpc-addr", "127.0.0.1:0", "--http-addr", "127.0.0.1:0",
		"--metrics-addr", "127.0.0.1:0", "--store", "memory", "--log-format", "json"}, args...)
	s := &svServer{t: t, cmd: exec.Command(svBin, all...), exited: make(chan struct{})}
	s.cmd.Env = svEnv(env...)
	stderr, err := s.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	serving := make(chan map[string]any, 1)
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Bytes()
			s.logMu.Lock()
			s.log.Write(line)
			s.log.WriteByte('\n')
			s.logMu.Unlock()
			var m map[string]any
			if json.Unmarshal(line, &m) == nil && m["msg"] == "serving" {
				select {
				case serving <- m:
				default:
				}
			}
		}
	}()
	go func() {
		<-readDone // all output read before Wait closes the pipe
		s.waitErr = s.cmd.Wait()
		close(s.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-s.exited:
		default:
			s.cmd.Process.Kill()
			<-s.exited
		}
		if s.conn != nil {
			s.conn.Close()
		}
	})
	select {
	case m := <-serving:
		s.grpcAddr, _ = m["grpc"].(string)
		s.httpAddr, _ = m["http"].(string)
		s.metricsAddr, _ = m["metrics"].(string)
	case <-s.exited:
		t.Fatalf("damone serve exited before serving (%v):\n%s", s.waitErr, s.logText())
	case <-time.After(20 * time.Second):
		t.Fatalf("damone serve logged no \"serving\" line within 20s:\n%s", s.logText())
	}
	if !strings.HasPrefix(s.grpcAddr, "127.0.0.1:") || !strings.HasPrefix(s.httpAddr, "127.0.0.1:") || !strings.HasPrefix(s.metricsAddr, "127.0.0.1:") {
		t.Fatalf("serving line addresses %q %q %q", s.grpcAddr, s.httpAddr, s.metricsAddr)
	}
	s.conn = s.dial(t)
	s.games = damonev1.NewGameServiceClient(s.conn)
	s.rules = damonev1.NewRulesServiceClient(s.conn)
	return s
}

func (s *svServer) dial(t *testing.T, opts ...grpc.DialOption) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient(s.grpcAddr, append([]grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

func (s *svServer) logText() string {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	return s.log.String()
}

func (s *svServer) url(path string) string { return "http://" + s.httpAddr + path }

func (s *svServer) metrics(t *testing.T) string {
	t.Helper()
	resp, err := http.Get("http://" + s.metricsAddr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("/metrics: %d", resp.StatusCode)
	}
	return string(body)
}

func svCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func svAuth(ctx context.Context, token string) context.Context {
	return metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+token)
}

// svWantStatus checks a gRPC error's code and ErrorInfo (domain damone.v1,
// reason, and the given metadata entries) and, for INVALID_ARGUMENT, a
// BadRequest violation on field.
func svWantStatus(t *testing.T, err error, code codes.Code, reason, field string, md map[string]string) *errdetails.ErrorInfo {
	t.Helper()
	if err == nil {
		t.Fatalf("call succeeded, want %v %s", code, reason)
	}
	st, ok := status.FromError(err)
	if !ok {
		t.Fatalf("not a gRPC status: %v", err)
	}
	if st.Code() != code {
		t.Fatalf("code %v (%q), want %v", st.Code(), st.Message(), code)
	}
	var info *errdetails.ErrorInfo
	var br *errdetails.BadRequest
	for _, d := range st.Details() {
		switch d := d.(type) {
		case *errdetails.ErrorInfo:
			info = d
		case *errdetails.BadRequest:
			br = d
		}
	}
	if reason == "" {
		return info
	}
	if info == nil {
		t.Fatalf("%v %q: no ErrorInfo, want reason %s", code, st.Message(), reason)
	}
	if info.Reason != reason || info.Domain != "damone.v1" {
		t.Fatalf("ErrorInfo %s/%s, want %s/damone.v1 (%q)", info.Reason, info.Domain, reason, st.Message())
	}
	for k, v := range md {
		if got, ok := info.Metadata[k]; !ok || got != v {
			t.Errorf("ErrorInfo metadata %q = %q (present %v), want %q; all: %v", k, got, ok, v, info.Metadata)
		}
	}
	if code == codes.InvalidArgument {
		if br == nil {
			t.Fatalf("INVALID_ARGUMENT without a BadRequest detail (%q)", st.Message())
		}
		var fields []string
		for _, v := range br.FieldViolations {
			fields = append(fields, v.Field)
		}
		if !slices.Contains(fields, field) {
			t.Errorf("field violations %v, want one on %q", fields, field)
		}
	}
	return info
}

// Independent names of the engine's results (outcome.proto).
var svResultNames = map[engine.Result]string{
	engine.RedWins: "OUTCOME_RESULT_RED_WINS", engine.BlackWins: "OUTCOME_RESULT_BLACK_WINS", engine.Draw: "OUTCOME_RESULT_DRAW",
}
var svReasonNames = map[engine.Reason]string{
	engine.AllPiecesCaptured: "OUTCOME_REASON_ALL_PIECES_CAPTURED", engine.Stalemate: "OUTCOME_REASON_STALEMATE",
	engine.AllDamonesCaptured: "OUTCOME_REASON_ALL_DAMONES_CAPTURED", engine.Repetition: "OUTCOME_REASON_REPETITION",
	engine.NoProgress: "OUTCOME_REASON_NO_PROGRESS", engine.Resignation: "OUTCOME_REASON_RESIGNATION",
	engine.AgreedDraw: "OUTCOME_REASON_AGREED_DRAW",
}

// svReplay plays the same moves on an engine.Game: positions[k] is the
// position text after k plies.
type svReplay struct {
	t         *testing.T
	game      *engine.Game
	positions []string
	moves     []string
}

func newSvReplay(t *testing.T, v engine.Variant) *svReplay {
	g, err := engine.NewGame(v)
	if err != nil {
		t.Fatal(err)
	}
	return &svReplay{t: t, game: g, positions: []string{g.Position().String()}}
}

func (r *svReplay) play(mv string) {
	r.t.Helper()
	if _, err := r.game.PlayText(mv); err != nil {
		r.t.Fatalf("engine replay refuses %s at ply %d: %v", mv, len(r.moves), err)
	}
	r.moves = append(r.moves, mv)
	r.positions = append(r.positions, r.game.Position().String())
}

// svWatch collects a WatchGame stream in the background.
type svWatch struct {
	mu     sync.Mutex
	events []*damonev1.GameEvent
	seqs   chan int64
	done   chan struct{}
	err    error // io.EOF when the stream closed with OK
}

func svWatchGame(t *testing.T, ctx context.Context, c damonev1.GameServiceClient, name string, since int64) *svWatch {
	t.Helper()
	stream, err := c.WatchGame(ctx, &damonev1.WatchGameRequest{Name: name, SinceSequence: since})
	if err != nil {
		t.Fatal(err)
	}
	w := &svWatch{seqs: make(chan int64, 1<<16), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for {
			ev, err := stream.Recv()
			if err != nil {
				w.err = err
				return
			}
			w.mu.Lock()
			w.events = append(w.events, ev)
			w.mu.Unlock()
			w.seqs <- ev.Sequence
		}
	}()
	return w
}

// waitSeq waits until the watcher has received sequence n.
func (w *svWatch) waitSeq(t *testing.T, n int64) {
	t.Helper()
	timeout := time.After(15 * time.Second)
	for {
		w.mu.Lock()
		var last int64
		if k := len(w.events); k > 0 {
			last = w.events[k-1].Sequence
		}
		w.mu.Unlock()
		if last >= n {
			return
		}
		select {
		case <-w.seqs:
		case <-w.done:
			w.mu.Lock()
			k := len(w.events)
			w.mu.Unlock()
			if k > 0 && w.events[k-1].Sequence >= n {
				return
			}
			t.Fatalf("watch stream ended (%v) at sequence %d, waiting for %d", w.err, last, n)
		case <-timeout:
			t.Fatalf("watcher stuck at sequence %d, waiting for %d", last, n)
		}
	}
}

func (w *svWatch) wait(t *testing.T) ([]*damonev1.GameEvent, error) {
	t.Helper()
	select {
	case <-w.done:
	case <-time.After(15 * time.Second):
		t.Fatalf("watch stream did not end")
	}
	return w.events, w.err
}

func svContiguous(seqs []int64, from, to int64) bool {
	if int64(len(seqs)) != to-from+1 {
		return false
	}
	for i, s := range seqs {
		if s != from+int64(i) {
			return false
		}
	}
	return true
}

func svSeqs(evs []*damonev1.GameEvent) []int64 {
	out := make([]int64, len(evs))
	for i, e := range evs {
		out[i] = e.Sequence
	}
	return out
}

// svCheckEvents checks a whole event stream against the replay: 1..N,
// created first, one move_played per move in order, every position as the
// replay has it after the event's ply, game_ended last with outcome want.
func svCheckEvents(t *testing.T, evs []*damonev1.GameEvent, r *svReplay, lastSeq int64) {
	t.Helper()
	if !svContiguous(svSeqs(evs), 1, lastSeq) {
		t.Fatalf("event sequences %v, want 1..%d exactly once each", svSeqs(evs), lastSeq)
	}
	if evs[0].GetGameCreated() == nil {
		t.Errorf("first event is not game_created")
	}
	mi := 0
	for _, e := range evs {
		if int(e.Ply) >= len(r.positions) {
			t.Fatalf("event %d at ply %d, beyond the %d moves played", e.Sequence, e.Ply, len(r.moves))
		}
		if got, want := e.GetPosition().GetText(), r.positions[e.Ply]; got != want {
			t.Errorf("event %d (ply %d): position %s, engine replay %s", e.Sequence, e.Ply, got, want)
		}
		if mp := e.GetMovePlayed(); mp != nil {
			if mi >= len(r.moves) || mp.GetMove().GetNotation() != r.moves[mi] {
				t.Fatalf("event %d: move %s, want move %d of %v", e.Sequence, mp.GetMove().GetNotation(), mi, r.moves)
			}
			mi++
			if int(e.Ply) != mi {
				t.Errorf("move event %d has ply %d, want %d", e.Sequence, e.Ply, mi)
			}
		}
	}
	if mi != len(r.moves) {
		t.Errorf("%d move events for %d moves", mi, len(r.moves))
	}
	last := evs[len(evs)-1].GetGameEnded()
	if last == nil {
		t.Fatalf("last event %d is not game_ended", evs[len(evs)-1].Sequence)
	}
	if o := r.game.Outcome(); o.Over() {
		if got := last.GetOutcome(); got.GetResult().String() != svResultNames[o.Result] || got.GetReason().String() != svReasonNames[o.Reason] {
			t.Errorf("game_ended outcome %v/%v, engine replay %s/%s", got.GetResult(), got.GetReason(), svResultNames[o.Result], svReasonNames[o.Reason])
		}
	}
}

// svPlayRandomGRPC plays a whole game with seeded random legal moves and
// returns its name and tokens.
func svPlayRandomGRPC(t *testing.T, s *svServer, seed int64) (string, []string) {
	ctx := svCtx(t)
	cr, err := s.games.CreateGame(ctx, &damonev1.CreateGameRequest{Game: &damonev1.Game{}})
	if err != nil {
		t.Fatal(err)
	}
	name := cr.GetGame().GetName()
	if cr.GetRedToken() == "" || cr.GetBlackToken() == "" || cr.GetRedToken() == cr.GetBlackToken() {
		t.Fatalf("tokens %q %q", cr.GetRedToken(), cr.GetBlackToken())
	}
	if cr.GetGame().GetPosition().GetText() != svStartPos {
		t.Fatalf("start %s, want %s", cr.GetGame().GetPosition().GetText(), svStartPos)
	}
	// A second client, on its own connection, watches from the start.
	watcher := damonev1.NewGameServiceClient(s.dial(t))
	w := svWatchGame(t, ctx, watcher, name, 0)

	rng := rand.New(rand.NewSource(seed))
	r := newSvReplay(t, engine.DefaultVariant())
	game := cr.GetGame()
	for game.GetStatus() != damonev1.GameStatus_GAME_STATUS_FINISHED {
		if len(r.moves) > 3000 {
			t.Fatalf("no result after %d plies", len(r.moves))
		}
		lm, err := s.rules.ListLegalMoves(ctx, &damonev1.ListLegalMovesRequest{Position: &damonev1.Position{Text: game.GetPosition().GetText()}})
		if err != nil {
			t.Fatal(err)
		}
		if len(lm.GetMoves()) == 0 {
			t.Fatalf("ply %d: no legal move but the game goes on (%s)", len(r.moves), game.GetPosition().GetText())
		}
		mv := lm.GetMoves()[rng.Intn(len(lm.GetMoves()))].GetNotation()
		token := cr.GetRedToken()
		if game.GetPosition().GetSideToMove() == damonev1.Side_SIDE_BLACK {
			token = cr.GetBlackToken()
		}
		ply := game.GetPly()
		mr, err := s.games.MakeMove(svAuth(ctx, token), &damonev1.MakeMoveRequest{Name: name, Move: mv,
			Precondition: &damonev1.MakeMoveRequest_ExpectedPly{ExpectedPly: ply}})
		if err != nil {
			t.Fatalf("ply %d, %s: %v", ply, mv, err)
		}
		r.play(mv)
		game = mr.GetGame()
		if mr.GetMove().GetNotation() != mv || game.GetPly() != ply+1 {
			t.Fatalf("MakeMove(%s) answered move %s ply %d", mv, mr.GetMove().GetNotation(), game.GetPly())
		}
		if got, want := game.GetPosition().GetText(), r.positions[len(r.positions)-1]; got != want {
			t.Fatalf("after %s: position %s, engine replay %s", mv, got, want)
		}
		if over := game.GetStatus() == damonev1.GameStatus_GAME_STATUS_FINISHED; over != r.game.Outcome().Over() {
			t.Fatalf("after ply %d: server finished=%v, engine outcome %v", ply+1, over, r.game.Outcome())
		}
	}
	o := r.game.Outcome()
	if game.GetOutcome().GetResult().String() != svResultNames[o.Result] || game.GetOutcome().GetReason().String() != svReasonNames[o.Reason] {
		t.Errorf("outcome %v, engine replay %v", game.GetOutcome(), o)
	}
	evs, err := w.wait(t)
	if err != io.EOF {
		t.Fatalf("watch stream ended with %v, want OK after game_ended", err)
	}
	svCheckEvents(t, evs, r, game.GetLastEventSequence())
	t.Logf("seed %d: %d plies, %s", seed, len(r.moves), o)
	return name, []string{cr.GetRedToken(), cr.GetBlackToken()}
}

func TestServePlayGamesGRPC(t *testing.T) {
	s := svStart(t)
	var names, tokens []string
	for seed := int64(1); seed <= 3; seed++ {
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			name, tk := svPlayRandomGRPC(t, s, seed)
			names = append(names, name)
			tokens = append(tokens, tk...)
		})
	}
	// Tokens never appear in what the server sends or logs.
	ctx := svCtx(t)
	var seen bytes.Buffer
	lg, err := s.games.ListGames(ctx, &damonev1.ListGamesRequest{PageSize: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if len(lg.GetGames()) != len(names) {
		t.Errorf("ListGames: %d games, want %d", len(lg.GetGames()), len(names))
	}
	b, _ := protojson.Marshal(lg)
	seen.Write(b)
	for _, n := range names {
		g, err := s.games.GetGame(ctx, &damonev1.GetGameRequest{Name: n})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := protojson.Marshal(g)
		seen.Write(b)
		w := svWatchGame(t, ctx, s.games, n, 0)
		evs, _ := w.wait(t)
		for _, e := range evs {
			b, _ := protojson.Marshal(e)
			seen.Write(b)
		}
	}
	logs, metrics := s.logText(), s.metrics(t)
	for _, tk := range tokens {
		for what, text := range map[string]string{"responses": seen.String(), "server log": logs, "/metrics": metrics} {
			if strings.Contains(text, tk) {
				t.Errorf("a side token appears in the %s", what)
			}
		}
	}
}

// svHTTP sends a JSON request and returns the status and body.
func svHTTP(t *testing.T, method, url, token string, body any) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

type svRESTEvent struct {
	Game     string `json:"game"`
	Sequence string `json:"sequence"` // int64: a JSON string
	Ply      int    `json:"ply"`
	Position struct {
		Text       string `json:"text"`
		SideToMove string `json:"side_to_move"`
	} `json:"position"`
	GameCreated *json.RawMessage `json:"game_created"`
	MovePlayed  *struct {
		Move struct {
			Notation       string   `json:"notation"`
			LandingSquares []string `json:"landing_squares"`
		} `json:"move"`
	} `json:"move_played"`
	GameEnded *struct {
		Outcome struct {
			Result string `json:"result"`
			Reason string `json:"reason"`
		} `json:"outcome"`
	} `json:"game_ended"`
}

func TestServePlayGameREST(t *testing.T) {
	s := svStart(t)
	code, body := svHTTP(t, "POST", s.url("/v1/games"), "", map[string]any{})
	if code != 200 {
		t.Fatalf("POST /v1/games: %d %s", code, body)
	}
	var cr struct {
		Game struct {
			Name     string `json:"name"`
			Position struct {
				Text       string `json:"text"`
				SideToMove string `json:"side_to_move"`
			} `json:"position"`
			LastEventSequence string `json:"last_event_sequence"`
		} `json:"game"`
		RedToken   string `json:"red_token"`
		BlackToken string `json:"black_token"`
	}
	if err := json.Unmarshal(body, &cr); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	if cr.Game.Name == "" || cr.RedToken == "" || cr.BlackToken == "" || cr.Game.Position.SideToMove != "SIDE_RED" ||
		cr.Game.Position.Text != svStartPos || cr.Game.LastEventSequence != "1" {
		t.Fatalf("create response (proto field names expected): %s", body)
	}
	name := cr.Game.Name

	// Watch as NDJSON.
	ctx := svCtx(t)
	req, _ := http.NewRequestWithContext(ctx, "GET", s.url("/v1/"+name+":watch?since_sequence=0"), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("watch: %d", resp.StatusCode)
	}
	type watchResult struct {
		events []svRESTEvent
		err    error
	}
	watched := make(chan watchResult, 1)
	go func() {
		var res watchResult
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var line struct {
				Result *svRESTEvent     `json:"result"`
				Error  *json.RawMessage `json:"error"`
			}
			if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
				res.err = fmt.Errorf("line %q: %v", sc.Text(), err)
				break
			}
			if line.Error != nil {
				res.err = fmt.Errorf("stream error %s", *line.Error)
				break
			}
			if line.Result == nil {
				res.err = fmt.Errorf("line without result: %s", sc.Text())
				break
			}
			res.events = append(res.events, *line.Result)
		}
		if res.err == nil {
			res.err = sc.Err()
		}
		watched <- res
	}()

	rng := rand.New(rand.NewSource(7))
	r := newSvReplay(t, engine.DefaultVariant())
	pos, stm, ply, finished := svStartPos, "SIDE_RED", 0, false
	var lastSeq int64
	sawLanding := false
	for !finished {
		if ply > 3000 {
			t.Fatalf("no result after %d plies", ply)
		}
		code, body := svHTTP(t, "POST", s.url("/v1/rules:listLegalMoves"), "", map[string]any{"position": map[string]any{"text": pos}})
		if code != 200 {
			t.Fatalf("listLegalMoves: %d %s", code, body)
		}
		var lm struct {
			Moves []struct {
				Notation       string   `json:"notation"`
				LandingSquares []string `json:"landing_squares"`
			} `json:"moves"`
			Position struct {
				SideToMove string `json:"side_to_move"`
			} `json:"position"`
		}
		if err := json.Unmarshal(body, &lm); err != nil {
			t.Fatal(err)
		}
		if len(lm.Moves) == 0 || lm.Position.SideToMove != stm {
			t.Fatalf("listLegalMoves at ply %d: %s", ply, body)
		}
		for _, m := range lm.Moves {
			sawLanding = sawLanding || len(m.LandingSquares) > 0
		}
		mv := lm.Moves[rng.Intn(len(lm.Moves))].Notation
		token := cr.RedToken
		if stm == "SIDE_BLACK" {
			token = cr.BlackToken
		}
		code, body = svHTTP(t, "POST", s.url("/v1/"+name+":move"), token, map[string]any{"move": mv, "expected_ply": ply})
		if code != 200 {
			t.Fatalf("move %s at ply %d: %d %s", mv, ply, code, body)
		}
		var mr struct {
			Move struct {
				Notation string `json:"notation"`
			} `json:"move"`
			Game struct {
				Ply      int    `json:"ply"`
				Status   string `json:"status"`
				Position struct {
					Text       string `json:"text"`
					SideToMove string `json:"side_to_move"`
				} `json:"position"`
				Outcome struct {
					Result string `json:"result"`
					Reason string `json:"reason"`
				} `json:"outcome"`
				LastEventSequence string `json:"last_event_sequence"`
			} `json:"game"`
			EventSequence string `json:"event_sequence"`
		}
		if err := json.Unmarshal(body, &mr); err != nil {
			t.Fatal(err)
		}
		r.play(mv)
		ply++
		if mr.Move.Notation != mv || mr.Game.Ply != ply || mr.Game.Position.Text != r.positions[ply] {
			t.Fatalf("move %s: answered %s, ply %d, position %s; engine %s", mv, mr.Move.Notation, mr.Game.Ply, mr.Game.Position.Text, r.positions[ply])
		}
		pos, stm = mr.Game.Position.Text, mr.Game.Position.SideToMove
		finished = mr.Game.Status == "GAME_STATUS_FINISHED"
		if finished != r.game.Outcome().Over() {
			t.Fatalf("ply %d: finished %v, engine %v", ply, finished, r.game.Outcome())
		}
		if finished {
			o := r.game.Outcome()
			if mr.Game.Outcome.Result != svResultNames[o.Result] || mr.Game.Outcome.Reason != svReasonNames[o.Reason] {
				t.Errorf("outcome %+v, engine %v", mr.Game.Outcome, o)
			}
		}
		if lastSeq, err = strconv.ParseInt(mr.Game.LastEventSequence, 10, 64); err != nil {
			t.Fatalf("last_event_sequence %q is not an int64 string", mr.Game.LastEventSequence)
		}
	}
	if !sawLanding {
		t.Errorf("no landing_squares in any listed move")
	}
	var res watchResult
	select {
	case res = <-watched:
	case <-time.After(15 * time.Second):
		t.Fatal("REST watch stream did not end after game_ended")
	}
	if res.err != nil {
		t.Fatalf("REST watch: %v", res.err)
	}
	// Convert and check like the gRPC stream.
	var evs []*damonev1.GameEvent
	for _, e := range res.events {
		seq, err := strconv.ParseInt(e.Sequence, 10, 64)
		if err != nil {
			t.Fatalf("sequence %q is not an int64 string", e.Sequence)
		}
		if e.Game != name {
			t.Errorf("event game %q, want %q", e.Game, name)
		}
		pe := &damonev1.GameEvent{Sequence: seq, Ply: int32(e.Ply), Position: &damonev1.Position{Text: e.Position.Text}}
		switch {
		case e.GameCreated != nil:
			pe.Event = &damonev1.GameEvent_GameCreated_{GameCreated: &damonev1.GameEvent_GameCreated{}}
		case e.MovePlayed != nil:
			pe.Event = &damonev1.GameEvent_MovePlayed_{MovePlayed: &damonev1.GameEvent_MovePlayed{Move: &damonev1.Move{Notation: e.MovePlayed.Move.Notation}}}
			if len(e.MovePlayed.Move.LandingSquares) == 0 {
				t.Errorf("event %d: move without landing_squares", seq)
			}
		case e.GameEnded != nil:
			pe.Event = &damonev1.GameEvent_GameEnded_{GameEnded: &damonev1.GameEvent_GameEnded{Outcome: &damonev1.Outcome{
				Result: damonev1.OutcomeResult(damonev1.OutcomeResult_value[e.GameEnded.Outcome.Result]),
				Reason: damonev1.OutcomeReason(damonev1.OutcomeReason_value[e.GameEnded.Outcome.Reason])}}}
		}
		evs = append(evs, pe)
	}
	svCheckEvents(t, evs, r, lastSeq)
	t.Logf("REST game: %d plies, %s", ply, r.game.Outcome())
}

// svNewGame creates a game with an optional custom start.
func svNewGame(t *testing.T, ctx context.Context, s *svServer, startText string) *damonev1.CreateGameResponse {
	t.Helper()
	g := &damonev1.Game{}
	if startText != "" {
		g.Variant = &damonev1.Variant{Start: &damonev1.Variant_StartPosition{StartPosition: &damonev1.Position{Text: startText}}}
	}
	cr, err := s.games.CreateGame(ctx, &damonev1.CreateGameRequest{Game: g})
	if err != nil {
		t.Fatal(err)
	}
	return cr
}

func svMove(t *testing.T, ctx context.Context, s *svServer, name, token, mv string) *damonev1.MakeMoveResponse {
	t.Helper()
	mr, err := s.games.MakeMove(svAuth(ctx, token), &damonev1.MakeMoveRequest{Name: name, Move: mv})
	if err != nil {
		t.Fatalf("MakeMove(%s): %v", mv, err)
	}
	return mr
}

func TestServeErrors(t *testing.T) {
	s := svStart(t)
	ctx := svCtx(t)
	fresh := svNewGame(t, ctx, s, "")
	name, red, black := fresh.GetGame().GetName(), fresh.GetRedToken(), fresh.GetBlackToken()

	moved := svNewGame(t, ctx, s, "")
	staleEtag := moved.GetGame().GetEtag()
	after := svMove(t, ctx, s, moved.GetGame().GetName(), moved.GetRedToken(), "e2-d3").GetGame()

	won := svNewGame(t, ctx, s, svOneMoveWin)
	if g := svMove(t, ctx, s, won.GetGame().GetName(), won.GetRedToken(), "c4xa6").GetGame(); g.GetStatus() != damonev1.GameStatus_GAME_STATUS_FINISHED {
		t.Fatalf("c4xa6 did not end the game: %v", g)
	}

	start := &damonev1.Position{Text: svStartPos}
	mm := func(token string, r *damonev1.MakeMoveRequest) error {
		c := ctx
		if token != "" {
			c = svAuth(ctx, token)
		}
		_, err := s.games.MakeMove(c, r)
		return err
	}
	cases := []struct {
		name   string
		call   func() error
		code   codes.Code
		reason string
		field  string
		md     map[string]string
	}{
		{"bad position text", func() error {
			_, err := s.rules.ListLegalMoves(ctx, &damonev1.ListLegalMovesRequest{Position: &damonev1.Position{Text: "R:RPe3:BPb5:0"}})
			return err
		}, codes.InvalidArgument, "INVALID_REQUEST", "position.text", nil},
		{"bad structured square", func() error {
			_, err := s.rules.ListLegalMoves(ctx, &damonev1.ListLegalMovesRequest{Position: &damonev1.Position{
				SideToMove: damonev1.Side_SIDE_RED,
				Pieces:     []*damonev1.Piece{{Square: "e3", Side: damonev1.Side_SIDE_RED, Rank: damonev1.Rank_RANK_PEDINE}}}})
			return err
		}, codes.InvalidArgument, "INVALID_REQUEST", "position.pieces[0].square", nil},
		{"malformed notation (light square)", func() error {
			_, err := s.rules.ApplyMove(ctx, &damonev1.ApplyMoveRequest{Position: start, Move: "e2-e3"})
			return err
		}, codes.InvalidArgument, "INVALID_REQUEST", "move", nil},
		{"illegal move (rules)", func() error {
			_, err := s.rules.ApplyMove(ctx, &damonev1.ApplyMoveRequest{Position: start, Move: "f3-g2"})
			return err
		}, codes.FailedPrecondition, "ILLEGAL_MOVE", "", map[string]string{"move": "f3-g2", "legal_moves": svOpening, "cause": "NOT_A_MOVE"}},
		{"capture-all-damones without damones", func() error {
			_, err := s.games.CreateGame(ctx, &damonev1.CreateGameRequest{Game: &damonev1.Game{Variant: &damonev1.Variant{
				Start:        &damonev1.Variant_Setup{Setup: damonev1.Setup_SETUP_NO_DAMONE},
				WinCondition: damonev1.WinCondition_WIN_CONDITION_CAPTURE_ALL_DAMONES}}})
			return err
		}, codes.InvalidArgument, "INVALID_REQUEST", "game.variant", nil},
		{"bad start position", func() error {
			_, err := s.games.CreateGame(ctx, &damonev1.CreateGameRequest{Game: &damonev1.Game{Variant: &damonev1.Variant{
				Start: &damonev1.Variant_StartPosition{StartPosition: &damonev1.Position{Text: "R:RPa1:BPb5:0"}}}}})
			return err
		}, codes.InvalidArgument, "INVALID_REQUEST", "game.variant.start_position.text", nil},
		{"perft too deep", func() error {
			_, err := s.rules.Perft(ctx, &damonev1.PerftRequest{Position: start, Depth: 9})
			return err
		}, codes.ResourceExhausted, "LIMIT_EXCEEDED", "", map[string]string{"limit": "perft_depth", "maximum": "8"}},
		{"perft depth 0", func() error {
			_, err := s.rules.Perft(ctx, &damonev1.PerftRequest{Position: start, Depth: 0})
			return err
		}, codes.InvalidArgument, "INVALID_REQUEST", "depth", nil},
		{"unknown game", func() error {
			_, err := s.games.GetGame(ctx, &damonev1.GetGameRequest{Name: "games/no-such-game"})
			return err
		}, codes.NotFound, "GAME_NOT_FOUND", "", map[string]string{"name": "games/no-such-game"}},
		{"bad resource name", func() error {
			_, err := s.games.GetGame(ctx, &damonev1.GetGameRequest{Name: "players/1"})
			return err
		}, codes.InvalidArgument, "INVALID_REQUEST", "name", nil},
		{"negative page size", func() error {
			_, err := s.games.ListGames(ctx, &damonev1.ListGamesRequest{PageSize: -1})
			return err
		}, codes.InvalidArgument, "INVALID_REQUEST", "page_size", nil},
		{"no token", func() error { return mm("", &damonev1.MakeMoveRequest{Name: name, Move: "e2-d3"}) },
			codes.Unauthenticated, "MISSING_TOKEN", "", nil},
		{"not a bearer token", func() error {
			_, err := s.games.MakeMove(metadata.AppendToOutgoingContext(ctx, "authorization", "Basic "+red), &damonev1.MakeMoveRequest{Name: name, Move: "e2-d3"})
			return err
		}, codes.Unauthenticated, "MISSING_TOKEN", "", nil},
		{"wrong token", func() error { return mm("not-a-token", &damonev1.MakeMoveRequest{Name: name, Move: "e2-d3"}) },
			codes.PermissionDenied, "WRONG_TOKEN", "", nil},
		{"other game's token", func() error { return mm(won.GetRedToken(), &damonev1.MakeMoveRequest{Name: name, Move: "e2-d3"}) },
			codes.PermissionDenied, "WRONG_TOKEN", "", nil},
		{"not your turn", func() error { return mm(black, &damonev1.MakeMoveRequest{Name: name, Move: "a4-b3"}) },
			codes.FailedPrecondition, "NOT_YOUR_TURN", "", map[string]string{"side": "SIDE_BLACK", "side_to_move": "SIDE_RED"}},
		{"illegal move (backward pedine)", func() error { return mm(red, &damonev1.MakeMoveRequest{Name: name, Move: "f3-g2"}) },
			codes.FailedPrecondition, "ILLEGAL_MOVE", "", map[string]string{"move": "f3-g2", "legal_moves": svOpening, "cause": "NOT_A_MOVE"}},
		{"illegal move (no piece)", func() error { return mm(red, &damonev1.MakeMoveRequest{Name: name, Move: "c2-b3"}) },
			codes.FailedPrecondition, "ILLEGAL_MOVE", "", map[string]string{"move": "c2-b3", "legal_moves": svOpening, "cause": "NO_PIECE"}},
		{"malformed move", func() error { return mm(red, &damonev1.MakeMoveRequest{Name: name, Move: "e2-e3"}) },
			codes.InvalidArgument, "INVALID_REQUEST", "move", nil},
		{"stale etag", func() error {
			return mm(moved.GetBlackToken(), &damonev1.MakeMoveRequest{Name: moved.GetGame().GetName(), Move: "a4-b3",
				Precondition: &damonev1.MakeMoveRequest_Etag{Etag: staleEtag}})
		}, codes.Aborted, "ETAG_MISMATCH", "", map[string]string{"etag": after.GetEtag(), "ply": "1"}},
		{"stale expected ply", func() error {
			return mm(moved.GetBlackToken(), &damonev1.MakeMoveRequest{Name: moved.GetGame().GetName(), Move: "a4-b3",
				Precondition: &damonev1.MakeMoveRequest_ExpectedPly{ExpectedPly: 0}})
		}, codes.Aborted, "PLY_MISMATCH", "", map[string]string{"etag": after.GetEtag(), "ply": "1"}},
		{"game over", func() error {
			return mm(won.GetRedToken(), &damonev1.MakeMoveRequest{Name: won.GetGame().GetName(), Move: "a6-b7"})
		}, codes.FailedPrecondition, "GAME_OVER", "", map[string]string{"result": "OUTCOME_RESULT_RED_WINS", "reason": "OUTCOME_REASON_ALL_PIECES_CAPTURED"}},
		{"resign after the end", func() error {
			_, err := s.games.Resign(svAuth(ctx, won.GetBlackToken()), &damonev1.ResignRequest{Name: won.GetGame().GetName()})
			return err
		}, codes.FailedPrecondition, "GAME_OVER", "", nil},
		{"answer without an offer", func() error {
			_, err := s.games.AnswerDrawOffer(svAuth(ctx, black), &damonev1.AnswerDrawOfferRequest{Name: name, Accept: true})
			return err
		}, codes.FailedPrecondition, "NO_DRAW_OFFER", "", map[string]string{"side": "SIDE_BLACK"}},
		{"watch past the end", func() error {
			st, err := s.games.WatchGame(ctx, &damonev1.WatchGameRequest{Name: name, SinceSequence: 99})
			if err != nil {
				return err
			}
			_, err = st.Recv()
			return err
		}, codes.OutOfRange, "SEQUENCE_OUT_OF_RANGE", "", map[string]string{"last_event_sequence": "1"}},
		{"watch negative since", func() error {
			st, err := s.games.WatchGame(ctx, &damonev1.WatchGameRequest{Name: name, SinceSequence: -1})
			if err != nil {
				return err
			}
			_, err = st.Recv()
			return err
		}, codes.InvalidArgument, "INVALID_REQUEST", "since_sequence", nil},
		// docs/api.md, Error model: the checks run in the order
		// INVALID_ARGUMENT, UNAUTHENTICATED, NOT_FOUND, PERMISSION_DENIED,
		// request_id replay, ABORTED, FAILED_PRECONDITION.
		{"order: malformed before missing token", func() error { return mm("", &damonev1.MakeMoveRequest{Name: name, Move: "e2-e3"}) },
			codes.InvalidArgument, "INVALID_REQUEST", "move", nil},
		{"order: missing token before not found", func() error { return mm("", &damonev1.MakeMoveRequest{Name: "games/nope", Move: "e2-d3"}) },
			codes.Unauthenticated, "MISSING_TOKEN", "", nil},
		{"order: malformed before stale etag", func() error {
			return mm(moved.GetBlackToken(), &damonev1.MakeMoveRequest{Name: moved.GetGame().GetName(), Move: "a4-b3x",
				Precondition: &damonev1.MakeMoveRequest_Etag{Etag: staleEtag}})
		}, codes.InvalidArgument, "INVALID_REQUEST", "move", nil},
		{"order: game over before not your turn", func() error {
			return mm(won.GetBlackToken(), &damonev1.MakeMoveRequest{Name: won.GetGame().GetName(), Move: "b5-c4"})
		}, codes.FailedPrecondition, "GAME_OVER", "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			svWantStatus(t, c.call(), c.code, c.reason, c.field, c.md)
		})
	}

	t.Run("draw already offered", func(t *testing.T) {
		g := svNewGame(t, ctx, s, "")
		if _, err := s.games.OfferDraw(svAuth(ctx, g.GetRedToken()), &damonev1.OfferDrawRequest{Name: g.GetGame().GetName()}); err != nil {
			t.Fatal(err)
		}
		_, err := s.games.OfferDraw(svAuth(ctx, g.GetBlackToken()), &damonev1.OfferDrawRequest{Name: g.GetGame().GetName()})
		svWantStatus(t, err, codes.FailedPrecondition, "DRAW_ALREADY_OFFERED", "", map[string]string{"draw_offer": "SIDE_RED"})
	})

	// Nothing above changed the fresh game.
	g, err := s.games.GetGame(ctx, &damonev1.GetGameRequest{Name: name})
	if err != nil {
		t.Fatal(err)
	}
	if g.GetPly() != 0 || g.GetLastEventSequence() != 1 || g.GetEtag() != fresh.GetGame().GetEtag() {
		t.Errorf("refused calls changed the game: ply %d, last event %d, etag %s", g.GetPly(), g.GetLastEventSequence(), g.GetEtag())
	}
}

func TestServeRESTErrorStatuses(t *testing.T) {
	s := svStart(t)
	code, body := svHTTP(t, "POST", s.url("/v1/games"), "", map[string]any{})
	if code != 200 {
		t.Fatalf("create: %d %s", code, body)
	}
	var cr struct {
		Game struct {
			Name string `json:"name"`
			Etag string `json:"etag"`
		} `json:"game"`
		RedToken   string `json:"red_token"`
		BlackToken string `json:"black_token"`
	}
	json.Unmarshal(body, &cr)
	name, etag0 := cr.Game.Name, cr.Game.Etag
	if code, body := svHTTP(t, "POST", s.url("/v1/"+name+":move"), cr.RedToken, map[string]any{"move": "e2-d3"}); code != 200 {
		t.Fatalf("first move: %d %s", code, body)
	}
	cases := []struct {
		name, method, path, token string
		body                      any
		status                    int
		reason                    string
	}{
		{"malformed move", "POST", "/v1/" + name + ":move", cr.BlackToken, map[string]any{"move": "a4-a3"}, 400, "INVALID_REQUEST"},
		{"bad position", "POST", "/v1/rules:listLegalMoves", "", map[string]any{"position": map[string]any{"text": "nonsense"}}, 400, "INVALID_REQUEST"},
		{"no token", "POST", "/v1/" + name + ":move", "", map[string]any{"move": "a4-b3"}, 401, "MISSING_TOKEN"},
		{"wrong token", "POST", "/v1/" + name + ":move", "nope", map[string]any{"move": "a4-b3"}, 403, "WRONG_TOKEN"},
		{"unknown game", "GET", "/v1/games/no-such-game", "", nil, 404, "GAME_NOT_FOUND"},
		{"not your turn", "POST", "/v1/" + name + ":move", cr.RedToken, map[string]any{"move": "h5-g6"}, 400, "NOT_YOUR_TURN"},
		{"stale etag", "POST", "/v1/" + name + ":move", cr.BlackToken, map[string]any{"move": "a4-b3", "etag": etag0}, 412, "ETAG_MISMATCH"},
		{"stale expected_ply", "POST", "/v1/" + name + ":move", cr.BlackToken, map[string]any{"move": "a4-b3", "expected_ply": 0}, 412, "PLY_MISMATCH"},
		{"perft too deep", "POST", "/v1/rules:perft", "", map[string]any{"position": map[string]any{"text": svStartPos}, "depth": 9}, 429, "LIMIT_EXCEEDED"},
		{"watch past the end", "GET", "/v1/" + name + ":watch?since_sequence=50", "", nil, 400, "SEQUENCE_OUT_OF_RANGE"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, body := svHTTP(t, c.method, s.url(c.path), c.token, c.body)
			if c.reason == "SEQUENCE_OUT_OF_RANGE" && code == 200 {
				// A stream may report its error in its first NDJSON line.
				var line struct {
					Error *struct {
						Code    int               `json:"code"`
						Details []json.RawMessage `json:"details"`
					} `json:"error"`
				}
				if json.Unmarshal(bytes.SplitN(body, []byte("\n"), 2)[0], &line) == nil && line.Error != nil && line.Error.Code == int(codes.OutOfRange) {
					if !bytes.Contains(body, []byte(`"SEQUENCE_OUT_OF_RANGE"`)) {
						t.Errorf("stream error without its reason: %s", body)
					}
					return
				}
			}
			if code != c.status {
				t.Fatalf("HTTP %d, want %d: %s", code, c.status, body)
			}
			type details struct {
				Details []struct {
					Type   string `json:"@type"`
					Reason string `json:"reason"`
					Domain string `json:"domain"`
				} `json:"details"`
			}
			var st struct {
				details
				Error *details `json:"error"` // a stream's error line
			}
			if err := json.Unmarshal(body, &st); err != nil {
				t.Fatalf("error body %s: %v", body, err)
			}
			if st.Error != nil {
				st.details = *st.Error
			}
			found := false
			for _, d := range st.Details {
				if d.Type == "type.googleapis.com/google.rpc.ErrorInfo" && d.Reason == c.reason && d.Domain == "damone.v1" {
					found = true
				}
			}
			if !found {
				t.Errorf("error body without ErrorInfo %s: %s", c.reason, body)
			}
		})
	}
	// Nothing changed: Black is still to move at ply 1.
	_, body = svHTTP(t, "GET", s.url("/v1/"+name), "", nil)
	var g struct {
		Ply int `json:"ply"`
	}
	json.Unmarshal(body, &g)
	if g.Ply != 1 {
		t.Errorf("ply %d after refused calls, want 1", g.Ply)
	}
}

// docs/api.md, Positions: "If both are given they must describe the same
// position, so a position from a response can be sent back as it is."
func TestServePositionFromResponseSentBack(t *testing.T) {
	s := svStart(t)
	ctx := svCtx(t)
	cr := svNewGame(t, ctx, s, "")
	g, err := s.games.GetGame(ctx, &damonev1.GetGameRequest{Name: cr.GetGame().GetName()})
	if err != nil {
		t.Fatal(err)
	}
	pos := g.GetPosition() // text and structured form, as every response gives
	if pos.GetText() != svStartPos || len(pos.GetPieces()) != 16 || pos.GetSideToMove() != damonev1.Side_SIDE_RED {
		t.Fatalf("position in GetGame: %v", pos)
	}
	lm, err := s.rules.ListLegalMoves(ctx, &damonev1.ListLegalMovesRequest{Position: pos})
	if err != nil {
		t.Fatalf("ListLegalMoves with a position from a response: %v", err)
	}
	var got []string
	for _, m := range lm.GetMoves() {
		got = append(got, m.GetNotation())
	}
	if strings.Join(got, ",") != svOpening {
		t.Errorf("moves %v, want %s", got, svOpening)
	}
	// Both forms describing different positions is malformed.
	other := proto.Clone(pos).(*damonev1.Position)
	other.Text = "R:RPc4:BPb5:0"
	_, err = s.rules.ListLegalMoves(ctx, &damonev1.ListLegalMovesRequest{Position: other})
	svWantStatus(t, err, codes.InvalidArgument, "INVALID_REQUEST", "position", nil)
}

func TestServeConcurrentMoveRace(t *testing.T) {
	s := svStart(t)
	ctx := svCtx(t)
	a := damonev1.NewGameServiceClient(s.dial(t))
	b := damonev1.NewGameServiceClient(s.dial(t))
	for _, withPly := range []bool{false, true} {
		for round := 0; round < 10; round++ {
			cr := svNewGame(t, ctx, s, "")
			name, red := cr.GetGame().GetName(), cr.GetRedToken()
			var wg sync.WaitGroup
			errs := make([]error, 2)
			gate := make(chan struct{})
			for i, c := range []damonev1.GameServiceClient{a, b} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r := &damonev1.MakeMoveRequest{Name: name, Move: []string{"e2-d3", "h5-g6"}[i]}
					if withPly {
						r.Precondition = &damonev1.MakeMoveRequest_ExpectedPly{ExpectedPly: 0}
					}
					<-gate
					_, errs[i] = c.MakeMove(svAuth(ctx, red), r)
				}()
			}
			close(gate)
			wg.Wait()
			var ok, lost int
			for _, err := range errs {
				if err == nil {
					ok++
					continue
				}
				lost++
				// Without a precondition the loser is checked again against the
				// new state, where Black is to move: NOT_YOUR_TURN. With an
				// expected ply, the ply moved on: ABORTED PLY_MISMATCH.
				if withPly {
					svWantStatus(t, err, codes.Aborted, "PLY_MISMATCH", "", nil)
				} else {
					svWantStatus(t, err, codes.FailedPrecondition, "NOT_YOUR_TURN", "", nil)
				}
			}
			if ok != 1 || lost != 1 {
				t.Fatalf("expected_ply=%v round %d: %d OK, %d refused; want exactly one of each (%v)", withPly, round, ok, lost, errs)
			}
			g, err := s.games.GetGame(ctx, &damonev1.GetGameRequest{Name: name})
			if err != nil {
				t.Fatal(err)
			}
			if g.GetPly() != 1 || g.GetLastEventSequence() != 2 {
				t.Fatalf("after the race: ply %d last event %d, want 1 and 2", g.GetPly(), g.GetLastEventSequence())
			}
		}
	}
}

func TestServeIdempotentRetry(t *testing.T) {
	s := svStart(t)
	ctx := svCtx(t)
	cr := svNewGame(t, ctx, s, "")
	name, red := cr.GetGame().GetName(), cr.GetRedToken()
	req := &damonev1.MakeMoveRequest{Name: name, Move: "e2-d3", RequestId: "0b8f1c52-6a4e-4c1b-9d2e-7f3a5c9e1d20",
		Precondition: &damonev1.MakeMoveRequest_ExpectedPly{ExpectedPly: 0}}
	first, err := s.games.MakeMove(svAuth(ctx, red), req)
	if err != nil {
		t.Fatal(err)
	}
	// The retry (as after a lost response) has a stale precondition now,
	// but the request id answers first (docs/api.md).
	again, err := s.games.MakeMove(svAuth(ctx, red), req)
	if err != nil {
		t.Fatalf("retry: %v", err)
	}
	if first.GetEventSequence() != 2 || again.GetEventSequence() != 2 || again.GetMove().GetNotation() != "e2-d3" {
		t.Errorf("first %d, retry %d %s; want sequence 2 twice, e2-d3", first.GetEventSequence(), again.GetEventSequence(), again.GetMove().GetNotation())
	}
	g, _ := s.games.GetGame(ctx, &damonev1.GetGameRequest{Name: name})
	if g.GetPly() != 1 || g.GetLastEventSequence() != 2 {
		t.Errorf("after a retry: ply %d last event %d, want 1, 2", g.GetPly(), g.GetLastEventSequence())
	}
	other := proto.Clone(req).(*damonev1.MakeMoveRequest)
	other.Move, other.Precondition = "h5-g6", nil
	_, err = s.games.MakeMove(svAuth(ctx, red), other)
	svWantStatus(t, err, codes.InvalidArgument, "INVALID_REQUEST", "request_id", nil)

	// Many retries of one request at once: one move, one sequence for all.
	for round := 0; round < 5; round++ {
		cr := svNewGame(t, ctx, s, "")
		var wg sync.WaitGroup
		res := make([]*damonev1.MakeMoveResponse, 12)
		errs := make([]error, 12)
		for i := range res {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res[i], errs[i] = s.games.MakeMove(svAuth(ctx, cr.GetRedToken()),
					&damonev1.MakeMoveRequest{Name: cr.GetGame().GetName(), Move: "g4-f5", RequestId: "retry-" + strconv.Itoa(round)})
			}()
		}
		wg.Wait()
		for i := range res {
			if errs[i] != nil || res[i].GetEventSequence() != 2 {
				t.Fatalf("round %d: concurrent retry %d: %v (sequence %d), want OK with sequence 2", round, i, errs[i], res[i].GetEventSequence())
			}
		}
		g, _ := s.games.GetGame(ctx, &damonev1.GetGameRequest{Name: cr.GetGame().GetName()})
		if g.GetPly() != 1 {
			t.Fatalf("concurrent retries played %d moves", g.GetPly())
		}
	}
}

// svPlayRandom plays n random legal moves on a game (gRPC) and records them.
func svPlayRandom(t *testing.T, ctx context.Context, s *svServer, cr *damonev1.CreateGameResponse, r *svReplay, rng *rand.Rand, n int) *damonev1.Game {
	t.Helper()
	g, err := s.games.GetGame(ctx, &damonev1.GetGameRequest{Name: cr.GetGame().GetName()})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n && g.GetStatus() != damonev1.GameStatus_GAME_STATUS_FINISHED; i++ {
		lm, err := s.rules.ListLegalMoves(ctx, &damonev1.ListLegalMovesRequest{Position: &damonev1.Position{Text: g.GetPosition().GetText()}})
		if err != nil {
			t.Fatal(err)
		}
		mv := lm.GetMoves()[rng.Intn(len(lm.GetMoves()))].GetNotation()
		tok := cr.GetRedToken()
		if g.GetPosition().GetSideToMove() == damonev1.Side_SIDE_BLACK {
			tok = cr.GetBlackToken()
		}
		g = svMove(t, ctx, s, g.GetName(), tok, mv).GetGame()
		r.play(mv)
	}
	return g
}

func TestServeWatchResume(t *testing.T) {
	s := svStart(t)
	ctx := svCtx(t)
	cr := svNewGame(t, ctx, s, "")
	name := cr.GetGame().GetName()
	rng := rand.New(rand.NewSource(11))
	r := newSvReplay(t, engine.DefaultVariant())

	wctx, cut := context.WithCancel(ctx)
	w1 := svWatchGame(t, wctx, s.games, name, 0)
	svPlayRandom(t, ctx, s, cr, r, rng, 6)
	w1.waitSeq(t, 4)
	cut() // the stream breaks mid-game
	part1, err := w1.wait(t)
	if status.Code(err) != codes.Canceled {
		t.Fatalf("cut stream ended with %v", err)
	}
	lastSeen := part1[len(part1)-1].Sequence
	// More happens while nobody watches.
	g := svPlayRandom(t, ctx, s, cr, r, rng, 4)
	if g.GetStatus() == damonev1.GameStatus_GAME_STATUS_FINISHED {
		t.Fatalf("seed ended the game too early for this test")
	}
	w2 := svWatchGame(t, ctx, s.games, name, lastSeen)
	svPlayRandom(t, ctx, s, cr, r, rng, 4)
	if _, err := s.games.Resign(svAuth(ctx, cr.GetBlackToken()), &damonev1.ResignRequest{Name: name}); err != nil {
		t.Fatal(err)
	}
	part2, err := w2.wait(t)
	if err != io.EOF {
		t.Fatalf("resumed stream ended with %v, want OK after game_ended", err)
	}
	all := append(append([]*damonev1.GameEvent(nil), part1...), part2...)
	g, _ = s.games.GetGame(ctx, &damonev1.GetGameRequest{Name: name})
	svCheckEvents(t, all, r, g.GetLastEventSequence())
	if ge := all[len(all)-1].GetGameEnded().GetOutcome(); ge.GetResult() != damonev1.OutcomeResult_OUTCOME_RESULT_RED_WINS || ge.GetReason() != damonev1.OutcomeReason_OUTCOME_REASON_RESIGNATION {
		t.Errorf("ended with %v, want Red wins by resignation", ge)
	}
	// Watching the finished game from its last event: no event, closes at once.
	wctx2, cancel2 := context.WithTimeout(ctx, 5*time.Second)
	defer cancel2()
	st, err := s.games.WatchGame(wctx2, &damonev1.WatchGameRequest{Name: name, SinceSequence: g.GetLastEventSequence()})
	if err != nil {
		t.Fatal(err)
	}
	if ev, err := st.Recv(); err != io.EOF {
		t.Errorf("watch of a finished game from its last sequence: event %v, err %v; want no event and OK at once", ev, err)
	}
}

func TestServeSlowWatcherCutOff(t *testing.T) {
	s := svStart(t, "--watch-buffer", "4")
	ctx := svCtx(t)
	cr := svNewGame(t, ctx, s, "")
	name := cr.GetGame().GetName()

	// The slow client has its own connection with fixed 64 KiB flow-control
	// windows (no BDP growth), reads the first event, then stops reading.
	slowConn := s.dial(t, grpc.WithInitialWindowSize(64<<10), grpc.WithInitialConnWindowSize(64<<10))
	slowCtx, slowCancel := context.WithCancel(ctx)
	defer slowCancel()
	slow, err := damonev1.NewGameServiceClient(slowConn).WatchGame(slowCtx, &damonev1.WatchGameRequest{Name: name})
	if err != nil {
		t.Fatal(err)
	}
	first, err := slow.Recv()
	if err != nil || first.Sequence != 1 {
		t.Fatalf("slow watcher's first event: %v %v", first, err)
	}
	fast := svWatchGame(t, ctx, damonev1.NewGameServiceClient(s.dial(t)), name, 0)
	fast.waitSeq(t, 1)

	// Enough events to overflow everything HTTP/2 and the sockets can hold
	// for the slow stream (two 64 KiB windows, plus write buffers) many
	// times over, then the watch buffer of 4.
	evSize := proto.Size(fast.events[0])
	want := int64(1 << 20 / evSize)
	want = max(want, 800)
	t.Logf("event size %d bytes: playing about %d events", evSize, want)
	redCtx, blackCtx := svAuth(ctx, cr.GetRedToken()), svAuth(ctx, cr.GetBlackToken())
	var last int64 = 1
	for last < want {
		callCtx, cancel := context.WithTimeout(redCtx, 5*time.Second)
		o, err := s.games.OfferDraw(callCtx, &damonev1.OfferDrawRequest{Name: name})
		cancel()
		if err != nil {
			t.Fatalf("offer at sequence %d (the mover must never wait for a slow watcher): %v", last, err)
		}
		fast.waitSeq(t, o.GetGame().GetLastEventSequence())
		callCtx, cancel = context.WithTimeout(blackCtx, 5*time.Second)
		d, err := s.games.AnswerDrawOffer(callCtx, &damonev1.AnswerDrawOfferRequest{Name: name, Accept: false})
		cancel()
		if err != nil {
			t.Fatalf("decline at sequence %d: %v", last, err)
		}
		last = d.GetGame().GetLastEventSequence()
		fast.waitSeq(t, last)
	}
	// Now the slow client reads: a gapless prefix, then RESOURCE_EXHAUSTED.
	got := []int64{1}
	var slowErr error
	for {
		ev, err := slow.Recv()
		if err != nil {
			slowErr = err
			break
		}
		got = append(got, ev.Sequence)
	}
	svWantStatus(t, slowErr, codes.ResourceExhausted, "LIMIT_EXCEEDED", "", map[string]string{"limit": "watch_buffer", "maximum": "4"})
	k := got[len(got)-1]
	if !svContiguous(got, 1, k) || k >= last {
		t.Fatalf("slow watcher got %d events up to %d of %d; want a gapless prefix that stops short", len(got), k, last)
	}
	// Resume from the last sequence received: exactly the rest.
	if _, err := s.games.Resign(redCtx, &damonev1.ResignRequest{Name: name}); err != nil {
		t.Fatal(err)
	}
	resumed := svWatchGame(t, ctx, s.games, name, k)
	rest, err := resumed.wait(t)
	if err != io.EOF || !svContiguous(svSeqs(rest), k+1, last+1) {
		t.Errorf("resumed from %d: %d events %v..., end %v; want %d..%d then OK", k, len(rest), svSeqs(rest)[:min(3, len(rest))], err, k+1, last+1)
	}
	evs, err := fast.wait(t)
	if err != io.EOF || !svContiguous(svSeqs(evs), 1, last+1) {
		t.Errorf("fast watcher: %d events, end %v; want 1..%d then OK", len(evs), err, last+1)
	}
}

func TestServeGracefulShutdown(t *testing.T) {
	s := svStart(t, "--drain-timeout", "5s")
	ctx := svCtx(t)
	cr := svNewGame(t, ctx, s, "")
	name := cr.GetGame().GetName()
	w := svWatchGame(t, ctx, s.games, name, 0)
	w.waitSeq(t, 1)
	health := healthpb.NewHealthClient(s.conn)
	if r, err := health.Check(ctx, &healthpb.HealthCheckRequest{Service: "readiness"}); err != nil || r.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("readiness before shutdown: %v %v", r, err)
	}
	// A REST watch too.
	req, _ := http.NewRequestWithContext(ctx, "GET", s.url("/v1/"+name+":watch"), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	restLines := bufio.NewScanner(resp.Body)
	if !restLines.Scan() {
		t.Fatalf("REST watch: no first line")
	}

	sent := time.Now()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	_, err = w.wait(t)
	if status.Code(err) != codes.Unavailable {
		t.Errorf("open watch stream at shutdown ended with %v, want UNAVAILABLE", err)
	}
	// The REST stream ends too (with an UNAVAILABLE error line, if any).
	restEnded := make(chan string, 1)
	go func() {
		var rest []string
		for restLines.Scan() {
			rest = append(rest, restLines.Text())
		}
		restEnded <- strings.Join(rest, "\n")
	}()
	select {
	case rest := <-restEnded:
		if rest != "" && !strings.Contains(rest, `"code":14`) {
			t.Errorf("REST watch after SIGTERM: %s", rest)
		}
	case <-time.After(10 * time.Second):
		t.Errorf("REST watch stream did not end at shutdown")
	}
	r, err := health.Check(ctx, &healthpb.HealthCheckRequest{Service: "readiness"})
	if err == nil && r.GetStatus() != healthpb.HealthCheckResponse_NOT_SERVING {
		t.Errorf("readiness during shutdown: %v, want NOT_SERVING or no connection", r.GetStatus())
	}
	select {
	case <-s.exited:
	case <-time.After(5*time.Second + 5*time.Second):
		t.Fatalf("damone serve did not exit within the drain time after SIGTERM")
	}
	if s.waitErr != nil {
		t.Errorf("exit after SIGTERM: %v, want status 0\n%s", s.waitErr, s.logText())
	}
	t.Logf("exited %v after SIGTERM", time.Since(sent).Round(time.Millisecond))
	logs := s.logText()
	for _, want := range []string{`"msg":"shutting down"`, `"msg":"stopped"`} {
		if !strings.Contains(logs, want) {
			t.Errorf("log lacks %s", want)
		}
	}
	for _, tk := range []string{cr.GetRedToken(), cr.GetBlackToken()} {
		if strings.Contains(logs, tk) {
			t.Errorf("a token appears in the log")
		}
	}
}

// svMetric returns the value of the sample named name whose labels include
// all of want, and whether there is one.
func svMetric(text, name string, want map[string]string) (float64, bool) {
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "#") || !strings.HasPrefix(line, name) {
			continue
		}
		rest := line[len(name):]
		labels := map[string]string{}
		if strings.HasPrefix(rest, "{") {
			end := strings.Index(rest, "}")
			if end < 0 {
				continue
			}
			for _, kv := range strings.Split(rest[1:end], ",") {
				k, v, ok := strings.Cut(kv, "=")
				if ok {
					labels[k] = strings.Trim(v, `"`)
				}
			}
			rest = rest[end+1:]
		}
		if !strings.HasPrefix(rest, " ") {
			continue // a longer metric name
		}
		match := true
		for k, v := range want {
			if labels[k] != v {
				match = false
			}
		}
		if !match {
			continue
		}
		f, err := strconv.ParseFloat(strings.Fields(rest)[0], 64)
		if err == nil {
			return f, true
		}
	}
	return 0, false
}

func TestServeMetrics(t *testing.T) {
	s := svStart(t)
	ctx := svCtx(t)
	const calls = 200
	for i := 0; i < calls; i++ {
		if _, err := s.rules.ListLegalMoves(ctx, &damonev1.ListLegalMovesRequest{Position: &damonev1.Position{Text: svStartPos}}); err != nil {
			t.Fatal(err)
		}
	}
	cr := svNewGame(t, ctx, s, "")
	svMove(t, ctx, s, cr.GetGame().GetName(), cr.GetRedToken(), "e2-d3")
	svMove(t, ctx, s, cr.GetGame().GetName(), cr.GetBlackToken(), "a4-b3")
	_, err := s.games.MakeMove(svAuth(ctx, cr.GetRedToken()), &damonev1.MakeMoveRequest{Name: cr.GetGame().GetName(), Move: "f3-g2"})
	svWantStatus(t, err, codes.FailedPrecondition, "ILLEGAL_MOVE", "", nil)

	m := s.metrics(t)
	// Sampled 1 in 8: P(no sample in 200 calls) = (7/8)^200 ~ 2.6e-12.
	n, ok := svMetric(m, "damone_movegen_duration_seconds_count", map[string]string{"operation": "list_legal_moves"})
	if !ok || n <= 0 || n > calls {
		t.Errorf("damone_movegen_duration_seconds_count{operation=list_legal_moves} = %v (present %v), want 1..%d", n, ok, calls)
	}
	n, ok = svMetric(m, "grpc_server_handled_total", map[string]string{
		"grpc_service": "damone.v1.RulesService", "grpc_method": "ListLegalMoves", "grpc_code": "OK", "grpc_type": "unary"})
	if !ok || n != calls {
		t.Errorf("grpc_server_handled_total for ListLegalMoves OK = %v (present %v), want %d", n, ok, calls)
	}
	n, ok = svMetric(m, "grpc_server_handled_total", map[string]string{
		"grpc_service": "damone.v1.GameService", "grpc_method": "MakeMove", "grpc_code": "FailedPrecondition"})
	if !ok || n != 1 {
		t.Errorf("grpc_server_handled_total for MakeMove FailedPrecondition = %v (present %v), want 1", n, ok)
	}
	if n, ok := svMetric(m, "damone_moves_played_total", nil); !ok || n != 2 {
		t.Errorf("damone_moves_played_total = %v (present %v), want 2", n, ok)
	}
	if n, ok := svMetric(m, "damone_moves_rejected_total", map[string]string{"reason": "ILLEGAL_MOVE"}); !ok || n != 1 {
		t.Errorf("damone_moves_rejected_total{reason=ILLEGAL_MOVE} = %v (present %v), want 1", n, ok)
	}
	if n, ok := svMetric(m, "damone_games", nil); !ok || n != 1 {
		t.Errorf("damone_games = %v (present %v), want 1", n, ok)
	}
	for _, tk := range []string{cr.GetRedToken(), cr.GetBlackToken()} {
		if strings.Contains(m, tk) || strings.Contains(s.logText(), tk) {
			t.Errorf("a token appears in /metrics or the log")
		}
	}
	if strings.Contains(m, strings.TrimPrefix(cr.GetGame().GetName(), "games/")) {
		t.Errorf("a game id appears in /metrics")
	}
	// One log line per call, naming the method.
	if c := strings.Count(s.logText(), "ListLegalMoves"); c < calls {
		t.Errorf("%d log lines name ListLegalMoves, want one per call (%d)", c, calls)
	}
}

func TestServeHealthAndReflection(t *testing.T) {
	s := svStart(t)
	ctx := svCtx(t)
	health := healthpb.NewHealthClient(s.conn)
	for _, svc := range []string{"liveness", "readiness"} {
		r, err := health.Check(ctx, &healthpb.HealthCheckRequest{Service: svc})
		if err != nil || r.GetStatus() != healthpb.HealthCheckResponse_SERVING {
			t.Errorf("health %s: %v %v, want SERVING", svc, r.GetStatus(), err)
		}
	}
	for _, path := range []string{"/healthz", "/readyz"} {
		resp, err := http.Get(s.url(path))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("%s: %d, want 200", path, resp.StatusCode)
		}
	}
	stream, err := reflectionpb.NewServerReflectionClient(s.conn).ServerReflectionInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.Send(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{ListServices: ""}}); err != nil {
		t.Fatal(err)
	}
	resp, err := stream.Recv()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, svc := range resp.GetListServicesResponse().GetService() {
		names = append(names, svc.GetName())
	}
	for _, want := range []string{"damone.v1.GameService", "damone.v1.RulesService", "grpc.health.v1.Health"} {
		if !slices.Contains(names, want) {
			t.Errorf("reflection lists %v, want %s among them", names, want)
		}
	}
	stream.CloseSend()
}

func svLastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

func TestServeBadSettings(t *testing.T) {
	svSkip(t)
	addrs := []string{"--grpc-addr", "127.0.0.1:0", "--http-addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0", "--store", "memory"}
	cases := []struct {
		name    string
		args    []string
		env     []string
		mention string
	}{
		{"perft depth 0", []string{"--max-perft-depth", "0"}, nil, "max-perft-depth"},
		{"log format from env", nil, []string{"DAMONE_LOG_FORMAT=xml"}, "log-format"},
		{"log level", []string{"--log-level", "loud"}, nil, "log-level"},
		{"watch buffer 0", []string{"--watch-buffer", "0"}, nil, "watch-buffer"},
		{"negative max games from env", nil, []string{"DAMONE_MAX_GAMES=-1"}, "max-games"},
		{"unknown store", []string{"--store", "floppy"}, nil, "store"},
		{"unknown service", []string{"--services", "chess"}, nil, "services"},
		{"bad address", []string{"--grpc-addr", "nonsense"}, nil, "grpc-addr"},
		{"stray argument", []string{"extra"}, nil, "extra"},
		// A value that does not parse is as much a bad setting as one out
		// of range: the usage exit code 2.
		{"unparsable watch buffer", []string{"--watch-buffer", "lots"}, nil, "watch-buffer"},
		{"unknown flag", []string{"--no-such-flag"}, nil, "no-such-flag"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			args := append(append([]string{"serve"}, addrs...), c.args...)
			cmd := exec.CommandContext(ctx, svBin, args...)
			cmd.Env = svEnv(c.env...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatalf("damone serve %v: %v (it should refuse to start)\n%s", c.args, err, stderr.String())
			}
			if ee.ExitCode() != 2 {
				t.Errorf("exit code %d, want 2 (usage error); last stderr line: %s", ee.ExitCode(), svLastLine(stderr.String()))
			}
			if !strings.Contains(stderr.String(), c.mention) {
				t.Errorf("stderr does not name %q:\n%s", c.mention, stderr.String())
			}
		})
	}
}
