package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
	"github.com/damone-rules/damone/internal/engine"
)

func limitOf(err error) string {
	st, _ := status.FromError(err)
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			return info.GetMetadata()["limit"]
		}
	}
	return ""
}

func TestAnalyzePosition(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	r := startReplica(t, "--store", "memory", "--max-analysis-time", "2s", "--max-analyses", "1")
	client := damonev1.NewAnalysisServiceClient(r.conn)
	ctx := context.Background()

	// RULES.md, Promotion: c4xa6xc8 is the only move and takes both Black
	// pieces, so Red wins in 1 ply.
	stream, err := client.AnalyzePosition(ctx, &damonev1.AnalyzePositionRequest{
		Position: &damonev1.Position{Text: "R:RPc4:BPb5,Pb7:0"},
		Limit:    &damonev1.AnalyzePositionRequest_Depth{Depth: 3}})
	if err != nil {
		t.Fatal(err)
	}
	var msgs []*damonev1.AnalyzePositionResponse
	for {
		m, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, m)
	}
	last := msgs[len(msgs)-1]
	if !last.GetFinal() || last.GetBestMove().GetNotation() != "c4xa6xc8" {
		t.Fatalf("final message %v, want best move c4xa6xc8", last)
	}
	if w := last.GetLines()[0].GetScore().GetWinInPlies(); w != 1 {
		t.Fatalf("score %v, want a win in 1 ply", last.GetLines()[0].GetScore())
	}
	for i, m := range msgs[:len(msgs)-1] {
		if m.GetFinal() || m.GetDepth() != int32(i+1) {
			t.Fatalf("message %d: depth %d final %v; want one message per depth 1, 2, ...", i, m.GetDepth(), m.GetFinal())
		}
	}

	// Multi-PV from the standard start: 3 distinct lines of legal moves.
	stream, err = client.AnalyzePosition(ctx, &damonev1.AnalyzePositionRequest{
		Position: &damonev1.Position{Text: "R:RMh1,Df1,Dh3,Pd1,Pe2,Pf3,Pg4,Ph5:BMa8,Da6,Dc8,Pa4,Pb5,Pc6,Pd7,Pe8:0"},
		Limit:    &damonev1.AnalyzePositionRequest_Nodes{Nodes: 50_000}, Lines: 3})
	if err != nil {
		t.Fatal(err)
	}
	var final *damonev1.AnalyzePositionResponse
	for {
		m, err := stream.Recv()
		if err != nil {
			break
		}
		final = m
	}
	firsts := map[string]bool{}
	for _, l := range final.GetLines() {
		p, _ := engine.StartPosition(engine.SetupStandard, engine.Red)
		for _, mv := range l.GetMoves() {
			m, err := p.ParseMove(mv)
			if err != nil {
				t.Fatalf("line %v: %v", l.GetMoves(), err)
			}
			p.Play(&m)
		}
		firsts[l.GetMoves()[0]] = true
	}
	if len(final.GetLines()) != 3 || len(firsts) != 3 {
		t.Fatalf("%d lines with %d distinct first moves, want 3 and 3", len(final.GetLines()), len(firsts))
	}

	// Caps: a move time above the cap, and a second analysis at once.
	_, err = recvOne(client, &damonev1.AnalyzePositionRequest{Position: &damonev1.Position{Text: "R:RPc4:BPb5,Pb7:0"},
		Limit: &damonev1.AnalyzePositionRequest_MoveTime{MoveTime: durationpb.New(time.Minute)}})
	if status.Code(err) != codes.ResourceExhausted || limitOf(err) != "analysis_time" {
		t.Fatalf("move_time above the cap: %v, want RESOURCE_EXHAUSTED with limit analysis_time", err)
	}
	busyCtx, cancelBusy := context.WithCancel(ctx)
	busy, err := client.AnalyzePosition(busyCtx, &damonev1.AnalyzePositionRequest{
		Position: &damonev1.Position{Text: "R:RMh1,Df1,Dh3,Pd1,Pe2,Pf3,Pg4,Ph5:BMa8,Da6,Dc8,Pa4,Pb5,Pc6,Pd7,Pe8:0"},
		Limit:    &damonev1.AnalyzePositionRequest_Infinite{Infinite: true}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := busy.Recv(); err != nil { // it is searching
		t.Fatal(err)
	}
	_, err = recvOne(client, &damonev1.AnalyzePositionRequest{Position: &damonev1.Position{Text: "R:RPc4:BPb5,Pb7:0"},
		Limit: &damonev1.AnalyzePositionRequest_Depth{Depth: 2}})
	if status.Code(err) != codes.ResourceExhausted || limitOf(err) != "analyses" {
		t.Fatalf("a second analysis with max-analyses 1: %v, want RESOURCE_EXHAUSTED with limit analyses", err)
	}
	cancelBusy() // the client goes away: the analysis ends and frees its slot
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, err = recvOne(client, &damonev1.AnalyzePositionRequest{Position: &damonev1.Position{Text: "R:RPc4:BPb5,Pb7:0"},
			Limit: &damonev1.AnalyzePositionRequest_Depth{Depth: 2}})
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("analysis after the busy client left: %v", err)
	}

	// Malformed requests name their field.
	for _, c := range []struct {
		req   *damonev1.AnalyzePositionRequest
		field string
	}{
		{&damonev1.AnalyzePositionRequest{Position: &damonev1.Position{Text: "R:RPc4:BPb5,Pb7:0"}}, "limit"},
		{&damonev1.AnalyzePositionRequest{Position: &damonev1.Position{Text: "R:RPd4:BPb5"}, Limit: &damonev1.AnalyzePositionRequest_Depth{Depth: 2}}, "position.text"},
		{&damonev1.AnalyzePositionRequest{Position: &damonev1.Position{Text: "R:RPc4:BPb5,Pb7:0"}, Limit: &damonev1.AnalyzePositionRequest_Depth{Depth: 2}, Lines: 6}, "lines"},
		{&damonev1.AnalyzePositionRequest{Position: &damonev1.Position{Text: "R:RPc4:BPb5,Pb7:0"}, Limit: &damonev1.AnalyzePositionRequest_Nodes{Nodes: 0}}, "nodes"},
	} {
		_, err := recvOne(client, c.req)
		if status.Code(err) != codes.InvalidArgument || violatedField(err) != c.field {
			t.Errorf("%v: %v, want INVALID_ARGUMENT on field %s", c.req, err, c.field)
		}
	}

	// REST: newline-delimited JSON, one {"result": ...} per line.
	resp, err := http.Post("http://"+r.httpAddr+"/v1/analysis:analyzePosition", "application/json",
		strings.NewReader(`{"position":{"text":"R:RPc4:BPb5,Pb7:0"},"depth":2}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	var lines []map[string]map[string]any
	for sc.Scan() {
		var m map[string]map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		lines = append(lines, m)
	}
	// The win in 1 is proven at depth 1, so the search stops there: one
	// progress line, then the final one.
	if len(lines) != 2 || lines[1]["result"]["final"] != true || lines[0]["result"]["nodes_per_second"] == nil ||
		lines[1]["result"]["best_move"] == nil {
		t.Fatalf("REST stream %v, want depth 1 then the final message with best_move, in snake_case", lines)
	}
}

func recvOne(c damonev1.AnalysisServiceClient, req *damonev1.AnalyzePositionRequest) (*damonev1.AnalyzePositionResponse, error) {
	stream, err := c.AnalyzePosition(context.Background(), req)
	if err != nil {
		return nil, err
	}
	var last *damonev1.AnalyzePositionResponse
	for {
		m, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return last, nil
		}
		if err != nil {
			return nil, err
		}
		last = m
	}
}

func violatedField(err error) string {
	st, _ := status.FromError(err)
	for _, d := range st.Details() {
		if br, ok := d.(*errdetails.BadRequest); ok && len(br.GetFieldViolations()) > 0 {
			return br.GetFieldViolations()[0].GetField()
		}
	}
	return ""
}

func TestGameAgainstTheEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	r := startReplica(t, "--store", "memory")
	ctx := context.Background()
	created, err := r.games.CreateGame(ctx, &damonev1.CreateGameRequest{Game: &damonev1.Game{
		EngineOpponent: &damonev1.EngineOpponent{Side: damonev1.Side_SIDE_BLACK,
			Strength: &damonev1.EngineOpponent_Depth{Depth: 4}}}})
	if err != nil {
		t.Fatal(err)
	}
	if created.GetBlackToken() != "" || created.GetRedToken() == "" {
		t.Fatal("the engine's side got a token, or the human's did not")
	}
	name := created.GetGame().GetName()
	w := watch(t, r.games, name, 0)
	moves := []string{"e2-d3"}
	if _, err := r.games.MakeMove(svAuth(ctx, created.GetRedToken()), &damonev1.MakeMoveRequest{Name: name, Move: "e2-d3"}); err != nil {
		t.Fatal(err)
	}
	w.waitFor(t, 3) // created, Red's move, the engine's reply
	reply := w.events[2].GetMovePlayed().GetMove()
	if reply.GetSide() != damonev1.Side_SIDE_BLACK {
		t.Fatalf("event 3 is %v, want the engine's (Black's) move", w.events[2])
	}
	moves = append(moves, reply.GetNotation())
	checkEvents(t, w.events[:3], 1, moves)
	// The human cannot move for the engine.
	_, err = r.games.MakeMove(svAuth(ctx, created.GetRedToken()), &damonev1.MakeMoveRequest{Name: name, Move: "a4-b3"})
	if status.Code(err) != codes.PermissionDenied && status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("Red's token moving a Black piece: %v, want PERMISSION_DENIED or FAILED_PRECONDITION", err)
	}
	// Bad strengths are refused with their field.
	_, err = r.games.CreateGame(ctx, &damonev1.CreateGameRequest{Game: &damonev1.Game{
		EngineOpponent: &damonev1.EngineOpponent{Side: damonev1.Side_SIDE_RED,
			Strength: &damonev1.EngineOpponent_MoveTime{MoveTime: durationpb.New(time.Hour)}}}})
	if status.Code(err) != codes.InvalidArgument || violatedField(err) != "game.engine_opponent.move_time" {
		t.Fatalf("an hour per move: %v, want INVALID_ARGUMENT on game.engine_opponent.move_time", err)
	}
	// The engine playing Red moves first by itself.
	first, err := r.games.CreateGame(ctx, &damonev1.CreateGameRequest{Game: &damonev1.Game{
		EngineOpponent: &damonev1.EngineOpponent{Side: damonev1.Side_SIDE_RED,
			Strength: &damonev1.EngineOpponent_MoveTime{MoveTime: durationpb.New(50 * time.Millisecond)}}}})
	if err != nil {
		t.Fatal(err)
	}
	w2 := watch(t, r.games, first.GetGame().GetName(), 0)
	w2.waitFor(t, 2)
	if w2.events[1].GetMovePlayed().GetMove().GetSide() != damonev1.Side_SIDE_RED {
		t.Fatalf("event 2 is %v, want the engine's opening move as Red", w2.events[1])
	}
}

// TestAnalyzeDecidedPositions: a position in which the game is already
// over (RULES.md, End of the game) is answered with its outcome, as
// ListLegalMoves gives it, and no search.
func TestAnalyzeDecidedPositions(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	r := startReplica(t, "--store", "memory")
	client := damonev1.NewAnalysisServiceClient(r.conn)
	limit := 8
	cases := []struct {
		text   string
		limit  *int32
		result damonev1.OutcomeResult
		reason damonev1.OutcomeReason
	}{
		// Black to move without pieces.
		{"B:RMb1,Da2:B:0", nil, damonev1.OutcomeResult_OUTCOME_RESULT_RED_WINS, damonev1.OutcomeReason_OUTCOME_REASON_ALL_PIECES_CAPTURED},
		// Black Pedine b7 blocked by Red Damas on a6, c6, c8.
		{"B:RDa6,Dc6,Dc8:BPb7:0", nil, damonev1.OutcomeResult_OUTCOME_RESULT_RED_WINS, damonev1.OutcomeReason_OUTCOME_REASON_STALEMATE},
		// The counter at the limit of 8.
		{"R:RMc2:BMc6:8", ptrTo(int32(limit)), damonev1.OutcomeResult_OUTCOME_RESULT_DRAW, damonev1.OutcomeReason_OUTCOME_REASON_NO_PROGRESS},
	}
	for _, c := range cases {
		stream, err := client.AnalyzePosition(context.Background(), &damonev1.AnalyzePositionRequest{
			Position: &damonev1.Position{Text: c.text},
			Variant:  &damonev1.Variant{NoProgressLimit: c.limit},
			Limit:    &damonev1.AnalyzePositionRequest_Depth{Depth: 4}})
		if err != nil {
			t.Fatal(err)
		}
		var msgs []*damonev1.AnalyzePositionResponse
		for {
			m, err := stream.Recv()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", c.text, err)
			}
			msgs = append(msgs, m)
		}
		if len(msgs) != 1 || !msgs[0].GetFinal() || msgs[0].GetBestMove() != nil || len(msgs[0].GetLines()) != 0 ||
			msgs[0].GetOutcome().GetResult() != c.result || msgs[0].GetOutcome().GetReason() != c.reason {
			t.Errorf("%s: %v, want one final message with outcome %v %v and no move", c.text, msgs, c.result, c.reason)
		}
	}
}

func ptrTo[T any](v T) *T { return &v }
