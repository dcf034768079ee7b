package main

// End-to-end check of every GameEvent kind against game.proto's rules
// for `ply` and `position`, over gRPC (live and replayed) and REST NDJSON,
// on the real binary; expected values are worked out by hand from
// RULES.md and checked against an engine replay.

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
	"github.com/damone-rules/damone/internal/engine"
)

// gcStep is one call of an event scenario: a move (arg is its notation),
// "offer", "accept", "decline" or "resign", for side who.
type gcStep struct {
	who damonev1.Side
	act string
	arg string
}

// gcEvent is what game.proto says one event carries: its kind, `ply` (the
// plies played when it happened: a draw offer declined by a move is
// declined before that move, so its event carries the ply before it) and
// the position after `ply` plies, given by hand where pos is set.
type gcEvent struct {
	kind    string // the oneof field's name
	ply     int32
	side    damonev1.Side
	byMove  bool
	result  damonev1.OutcomeResult
	reason  damonev1.OutcomeReason
	pos     string
	variant bool // game_created: carries the variant
}

const (
	gcRed   = damonev1.Side_SIDE_RED
	gcBlack = damonev1.Side_SIDE_BLACK
	// gcAfterE2D3 is the standard start after e2-d3 (docs/api.md).
	gcAfterE2D3 = "B:RMh1,Df1,Dh3,Pd1,Pd3,Pf3,Pg4,Ph5:BMa8,Da6,Dc8,Pa4,Pb5,Pc6,Pd7,Pe8:1"
)

// gcScenarios between them exercise every GameEvent kind and every
// outcome reason (the same games as internal/games' events test, each
// worked out by hand there).
var gcScenarios = []struct {
	name  string
	start string
	damon bool
	steps []gcStep
	want  []gcEvent
}{
	{
		name: "offers declined by answer and by move, then accepted",
		steps: []gcStep{{gcRed, "offer", ""}, {gcBlack, "decline", ""}, {gcRed, "offer", ""}, {gcRed, "move", "e2-d3"},
			{gcBlack, "move", "a4-b3"}, {gcBlack, "offer", ""}, {gcRed, "accept", ""}},
		want: []gcEvent{
			{kind: "game_created", ply: 0, pos: svStartPos, variant: true},
			{kind: "draw_offered", ply: 0, side: gcRed},
			{kind: "draw_declined", ply: 0, side: gcBlack},
			{kind: "draw_offered", ply: 0, side: gcRed},
			{kind: "move_played", ply: 1, pos: gcAfterE2D3},
			{kind: "draw_declined", ply: 1, side: gcBlack, byMove: true, pos: gcAfterE2D3},
			{kind: "move_played", ply: 2, pos: "R:RMh1,Df1,Dh3,Pd1,Pd3,Pf3,Pg4,Ph5:BMa8,Da6,Dc8,Pb3,Pb5,Pc6,Pd7,Pe8:2"},
			{kind: "draw_offered", ply: 2, side: gcBlack},
			{kind: "game_ended", ply: 2, result: damonev1.OutcomeResult_OUTCOME_RESULT_DRAW, reason: damonev1.OutcomeReason_OUTCOME_REASON_AGREED_DRAW},
		},
	},
	{
		name: "offer declined by the move that captures all pieces", start: svOneMoveWin,
		steps: []gcStep{{gcBlack, "offer", ""}, {gcRed, "move", "c4xa6"}},
		want: []gcEvent{
			{kind: "game_created", ply: 0, pos: svOneMoveWin, variant: true},
			{kind: "draw_offered", ply: 0, side: gcBlack, pos: svOneMoveWin},
			{kind: "draw_declined", ply: 0, side: gcRed, byMove: true, pos: svOneMoveWin},
			{kind: "move_played", ply: 1, pos: "B:RDa6:B:0"},
			{kind: "game_ended", ply: 1, pos: "B:RDa6:B:0",
				result: damonev1.OutcomeResult_OUTCOME_RESULT_RED_WINS, reason: damonev1.OutcomeReason_OUTCOME_REASON_ALL_PIECES_CAPTURED},
		},
	},
	{
		name:  "resignation with an offer pending",
		steps: []gcStep{{gcRed, "move", "e2-d3"}, {gcRed, "offer", ""}, {gcBlack, "resign", ""}},
		want: []gcEvent{
			{kind: "game_created", ply: 0, variant: true},
			{kind: "move_played", ply: 1, pos: gcAfterE2D3},
			{kind: "draw_offered", ply: 1, side: gcRed, pos: gcAfterE2D3},
			{kind: "game_ended", ply: 1, pos: gcAfterE2D3,
				result: damonev1.OutcomeResult_OUTCOME_RESULT_RED_WINS, reason: damonev1.OutcomeReason_OUTCOME_REASON_RESIGNATION},
		},
	},
	{
		name: "stalemate, the mover's own offer pending", start: "R:RMd5:BPh1:0",
		steps: []gcStep{{gcRed, "offer", ""}, {gcRed, "move", "d5-c6"}},
		want: []gcEvent{
			{kind: "game_created", ply: 0, variant: true},
			{kind: "draw_offered", ply: 0, side: gcRed, pos: "R:RMd5:BPh1:0"},
			{kind: "move_played", ply: 1, pos: "B:RMc6:BPh1:1"},
			{kind: "game_ended", ply: 1, pos: "B:RMc6:BPh1:1",
				result: damonev1.OutcomeResult_OUTCOME_RESULT_RED_WINS, reason: damonev1.OutcomeReason_OUTCOME_REASON_STALEMATE},
		},
	},
	{
		name: "all Damones captured, an offer declined by that capture", start: "R:RMc4:BMd5,Pb7:0", damon: true,
		steps: []gcStep{{gcBlack, "offer", ""}, {gcRed, "move", "c4xe6"}},
		want: []gcEvent{
			{kind: "game_created", ply: 0, variant: true},
			{kind: "draw_offered", ply: 0, side: gcBlack},
			{kind: "draw_declined", ply: 0, side: gcRed, byMove: true, pos: "R:RMc4:BMd5,Pb7:0"},
			{kind: "move_played", ply: 1, pos: "B:RMe6:BPb7:0"},
			{kind: "game_ended", ply: 1, pos: "B:RMe6:BPb7:0",
				result: damonev1.OutcomeResult_OUTCOME_RESULT_RED_WINS, reason: damonev1.OutcomeReason_OUTCOME_REASON_ALL_DAMONES_CAPTURED},
		},
	},
	{
		name: "repetition", start: "R:RMh1:BMa8:0",
		steps: []gcStep{{gcRed, "move", "h1-g2"}, {gcBlack, "move", "a8-b7"}, {gcRed, "move", "g2-h1"}, {gcBlack, "move", "b7-a8"},
			{gcBlack, "offer", ""},
			{gcRed, "move", "h1-g2"}, {gcBlack, "move", "a8-b7"}, {gcRed, "move", "g2-h1"}, {gcBlack, "move", "b7-a8"}},
		want: []gcEvent{
			{kind: "game_created", ply: 0, variant: true},
			{kind: "move_played", ply: 1}, {kind: "move_played", ply: 2}, {kind: "move_played", ply: 3},
			{kind: "move_played", ply: 4, pos: "R:RMh1:BMa8:4"},
			{kind: "draw_offered", ply: 4, side: gcBlack, pos: "R:RMh1:BMa8:4"},
			{kind: "draw_declined", ply: 4, side: gcRed, byMove: true, pos: "R:RMh1:BMa8:4"},
			{kind: "move_played", ply: 5, pos: "B:RMg2:BMa8:5"},
			{kind: "move_played", ply: 6}, {kind: "move_played", ply: 7},
			{kind: "move_played", ply: 8, pos: "R:RMh1:BMa8:8"},
			{kind: "game_ended", ply: 8, pos: "R:RMh1:BMa8:8",
				result: damonev1.OutcomeResult_OUTCOME_RESULT_DRAW, reason: damonev1.OutcomeReason_OUTCOME_REASON_REPETITION},
		},
	},
	{
		name: "no progress, an offer declined by that move", start: "R:RMh1:BMa8:79",
		steps: []gcStep{{gcBlack, "offer", ""}, {gcRed, "move", "h1-g2"}},
		want: []gcEvent{
			{kind: "game_created", ply: 0, variant: true},
			{kind: "draw_offered", ply: 0, side: gcBlack},
			{kind: "draw_declined", ply: 0, side: gcRed, byMove: true, pos: "R:RMh1:BMa8:79"},
			{kind: "move_played", ply: 1, pos: "B:RMg2:BMa8:80"},
			{kind: "game_ended", ply: 1, pos: "B:RMg2:BMa8:80",
				result: damonev1.OutcomeResult_OUTCOME_RESULT_DRAW, reason: damonev1.OutcomeReason_OUTCOME_REASON_NO_PROGRESS},
		},
	},
}

// gcCheckEvents checks one scenario's stream: sequences 1..N, each event's
// kind and payload, its ply, its position text against the hand-written
// one and against an engine replay of the moves after `ply` plies.
func gcCheckEvents(t *testing.T, evs []*damonev1.GameEvent, name string, r *svReplay, want []gcEvent) {
	t.Helper()
	if len(evs) != len(want) {
		t.Fatalf("%d events, want %d: %v", len(evs), len(want), evs)
	}
	for i, e := range evs {
		w := want[i]
		kind := ""
		if f := e.ProtoReflect().WhichOneof(e.ProtoReflect().Descriptor().Oneofs().ByName("event")); f != nil {
			kind = string(f.Name())
		}
		if e.GetSequence() != int64(i+1) || e.GetGame() != name || kind != w.kind {
			t.Errorf("event %d: sequence %d game %s kind %q, want %d %s %q", i+1, e.GetSequence(), e.GetGame(), kind, i+1, name, w.kind)
			continue
		}
		if mp := e.GetMovePlayed(); mp != nil {
			r.play(mp.GetMove().GetNotation())
		}
		if e.GetPly() != w.ply {
			t.Errorf("event %d (%s): ply %d, want %d", e.GetSequence(), kind, e.GetPly(), w.ply)
		}
		got := e.GetPosition().GetText()
		if int(w.ply) < len(r.positions) && got != r.positions[w.ply] {
			t.Errorf("event %d (%s): position %s, want the position after %d plies %s", e.GetSequence(), kind, got, w.ply, r.positions[w.ply])
		}
		if w.pos != "" && got != w.pos {
			t.Errorf("event %d (%s): position %s, want %s", e.GetSequence(), kind, got, w.pos)
		}
		if e.GetPosition().GetSideToMove() == damonev1.Side_SIDE_UNSPECIFIED || len(e.GetPosition().GetPieces()) == 0 {
			t.Errorf("event %d (%s): position without its structured form: %v", e.GetSequence(), kind, e.GetPosition())
		}
		switch kind {
		case "game_created":
			if w.variant && e.GetGameCreated().GetVariant() == nil {
				t.Errorf("game_created without the variant")
			}
		case "draw_offered":
			if e.GetDrawOffered().GetSide() != w.side {
				t.Errorf("event %d: draw_offered side %v, want %v", e.GetSequence(), e.GetDrawOffered().GetSide(), w.side)
			}
		case "draw_declined":
			if d := e.GetDrawDeclined(); d.GetSide() != w.side || d.GetByMove() != w.byMove {
				t.Errorf("event %d: draw_declined %v by_move %v, want %v %v", e.GetSequence(), d.GetSide(), d.GetByMove(), w.side, w.byMove)
			}
		case "game_ended":
			if o := e.GetGameEnded().GetOutcome(); o.GetResult() != w.result || o.GetReason() != w.reason {
				t.Errorf("event %d: outcome %v/%v, want %v/%v", e.GetSequence(), o.GetResult(), o.GetReason(), w.result, w.reason)
			}
		}
	}
}

// gcWatchREST reads a finished game's whole event stream over REST.
func gcWatchREST(t *testing.T, s *svServer, name string) []*damonev1.GameEvent {
	t.Helper()
	resp, err := http.Get(s.url("/v1/" + name + ":watch?since_sequence=0"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("REST watch: %d %s", resp.StatusCode, b)
	}
	var evs []*damonev1.GameEvent
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var line struct {
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil || line.Error != nil || line.Result == nil {
			t.Fatalf("REST watch line %s (%v)", sc.Bytes(), err)
		}
		e := &damonev1.GameEvent{}
		if err := protojson.Unmarshal(line.Result, e); err != nil {
			t.Fatalf("REST event %s: %v", line.Result, err)
		}
		evs = append(evs, e)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return evs
}

// TestServeEventPlyAndPosition checks every GameEvent kind against
// game.proto's rules for `ply` and `position`, in games reaching every
// outcome reason: over a live gRPC WatchGame stream, a gRPC replay from
// sequence 0 and the REST NDJSON stream.
func TestServeEventPlyAndPosition(t *testing.T) {
	s := svStart(t)
	ctx := svCtx(t)
	for _, sc := range gcScenarios {
		t.Run(sc.name, func(t *testing.T) {
			v := engine.DefaultVariant()
			pv := &damonev1.Variant{}
			if sc.start != "" {
				pos, err := engine.ParsePosition(sc.start)
				if err != nil {
					t.Fatal(err)
				}
				v.Setup, v.Start = engine.SetupCustom, pos
				pv.Start = &damonev1.Variant_StartPosition{StartPosition: &damonev1.Position{Text: sc.start}}
			}
			if sc.damon {
				v.WinCondition = engine.CaptureAllDamones
				pv.WinCondition = damonev1.WinCondition_WIN_CONDITION_CAPTURE_ALL_DAMONES
			}
			cr, err := s.games.CreateGame(ctx, &damonev1.CreateGameRequest{Game: &damonev1.Game{Variant: pv}})
			if err != nil {
				t.Fatal(err)
			}
			name := cr.GetGame().GetName()
			live := svWatchGame(t, ctx, s.games, name, 0)
			live.waitSeq(t, 1)
			tokens := map[damonev1.Side]string{gcRed: cr.GetRedToken(), gcBlack: cr.GetBlackToken()}
			for _, st := range sc.steps {
				actx := svAuth(ctx, tokens[st.who])
				var err error
				switch st.act {
				case "move":
					_, err = s.games.MakeMove(actx, &damonev1.MakeMoveRequest{Name: name, Move: st.arg})
				case "offer":
					_, err = s.games.OfferDraw(actx, &damonev1.OfferDrawRequest{Name: name})
				case "accept", "decline":
					_, err = s.games.AnswerDrawOffer(actx, &damonev1.AnswerDrawOfferRequest{Name: name, Accept: st.act == "accept"})
				case "resign":
					_, err = s.games.Resign(actx, &damonev1.ResignRequest{Name: name})
				}
				if err != nil {
					t.Fatalf("%v %s %s: %v", st.who, st.act, st.arg, err)
				}
			}
			evs, err := live.wait(t)
			if err != io.EOF {
				t.Fatalf("live stream ended with %v, want OK after game_ended", err)
			}
			gcCheckEvents(t, evs, name, newSvReplay(t, v), sc.want)
			replay := svWatchGame(t, ctx, s.games, name, 0)
			evs, err = replay.wait(t)
			if err != io.EOF {
				t.Fatalf("replay stream ended with %v", err)
			}
			gcCheckEvents(t, evs, name, newSvReplay(t, v), sc.want)
			gcCheckEvents(t, gcWatchREST(t, s, name), name, newSvReplay(t, v), sc.want)
		})
	}
}
