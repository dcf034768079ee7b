package games

import (
	"context"
	"testing"

	"github.com/damone-rules/damone/internal/engine"
)

// An eventStep is one call of an event scenario: a move (arg is its
// notation), "offer", "accept", "decline" or "resign", made with who's
// token.
type eventStep struct {
	who engine.Side
	act string
	arg string
}

// wantEvent is what game.proto says one event carries: its kind and
// payload, and `ply`: the plies played when it happened (after it), so a
// non-move event caused by a move (a decline by moving) carries the ply
// before that move, and a game_ended after a move the ply after it. The
// position must be the one after `ply` plies (the position after the
// event; for every event but move_played also the one before it); where
// pos is set it is also checked as text, worked out by hand.
type wantEvent struct {
	kind    EventKind
	ply     int
	side    engine.Side // draw_offered, draw_declined
	byMove  bool
	outcome engine.Outcome // game_ended
	pos     string
}

// eventScenario is a game exercising some event kinds and one ending.
type eventScenario struct {
	name  string
	start string // custom start; "" for the standard game
	damon bool   // win condition capture-all-Damones
	steps []eventStep
	want  []wantEvent
}

// afterE2D3 is the standard start after Red's e2-d3 (docs/api.md): a
// Pedine step is not progress.
const afterE2D3 = "B:RMh1,Df1,Dh3,Pd1,Pd3,Pf3,Pg4,Ph5:BMa8,Da6,Dc8,Pa4,Pb5,Pc6,Pd7,Pe8:1"

// eventScenarios between them exercise every GameEvent kind and every
// outcome reason (RULES.md, End of the game), each from a start where it
// follows from one or a few moves worked out by hand.
var eventScenarios = []eventScenario{
	{
		name: "offers declined by answer and by move, then accepted",
		steps: []eventStep{
			{engine.Red, "offer", ""}, {engine.Black, "decline", ""},
			{engine.Red, "offer", ""}, {engine.Red, "move", "e2-d3"}, // the offerer's own move: the offer stands
			{engine.Black, "move", "a4-b3"}, // declines it, before the move
			{engine.Black, "offer", ""}, {engine.Red, "accept", ""},
		},
		want: []wantEvent{
			{kind: EventCreated, ply: 0, pos: "R:RMh1,Df1,Dh3,Pd1,Pe2,Pf3,Pg4,Ph5:BMa8,Da6,Dc8,Pa4,Pb5,Pc6,Pd7,Pe8:0"},
			{kind: EventDrawOffered, ply: 0, side: engine.Red},
			{kind: EventDrawDeclined, ply: 0, side: engine.Black},
			{kind: EventDrawOffered, ply: 0, side: engine.Red},
			{kind: EventMovePlayed, ply: 1, pos: afterE2D3},
			{kind: EventDrawDeclined, ply: 1, side: engine.Black, byMove: true, pos: afterE2D3},
			{kind: EventMovePlayed, ply: 2, pos: "R:RMh1,Df1,Dh3,Pd1,Pd3,Pf3,Pg4,Ph5:BMa8,Da6,Dc8,Pb3,Pb5,Pc6,Pd7,Pe8:2"},
			{kind: EventDrawOffered, ply: 2, side: engine.Black},
			{kind: EventEnded, ply: 2, outcome: engine.Outcome{Result: engine.Draw, Reason: engine.AgreedDraw},
				pos: "R:RMh1,Df1,Dh3,Pd1,Pd3,Pf3,Pg4,Ph5:BMa8,Da6,Dc8,Pb3,Pb5,Pc6,Pd7,Pe8:2"},
		},
	},
	{
		// Red's only move c4xa6 takes Black's last piece and promotes on
		// a6: the move that declines Black's offer also ends the game.
		name:  "offer declined by the move that captures all pieces",
		start: oneMoveWin,
		steps: []eventStep{{engine.Black, "offer", ""}, {engine.Red, "move", "c4xa6"}},
		want: []wantEvent{
			{kind: EventCreated, ply: 0, pos: oneMoveWin},
			{kind: EventDrawOffered, ply: 0, side: engine.Black, pos: oneMoveWin},
			{kind: EventDrawDeclined, ply: 0, side: engine.Red, byMove: true, pos: oneMoveWin},
			{kind: EventMovePlayed, ply: 1, pos: "B:RDa6:B:0"},
			{kind: EventEnded, ply: 1, outcome: engine.Outcome{Result: engine.RedWins, Reason: engine.AllPiecesCaptured}, pos: "B:RDa6:B:0"},
		},
	},
	{
		name: "resignation with an offer pending",
		steps: []eventStep{
			{engine.Red, "move", "e2-d3"}, {engine.Red, "offer", ""}, {engine.Black, "resign", ""},
		},
		want: []wantEvent{
			{kind: EventCreated, ply: 0},
			{kind: EventMovePlayed, ply: 1, pos: afterE2D3},
			{kind: EventDrawOffered, ply: 1, side: engine.Red, pos: afterE2D3},
			{kind: EventEnded, ply: 1, outcome: engine.Outcome{Result: engine.RedWins, Reason: engine.Resignation}, pos: afterE2D3},
		},
	},
	{
		// A Black Pedine on h1 can never move (its three directions leave
		// the board); once Red's Damone has moved, Black is to move and
		// blocked: Red wins. Red's own pending offer ends with the game.
		name:  "stalemate, the mover's own offer pending",
		start: "R:RMd5:BPh1:0",
		steps: []eventStep{{engine.Red, "offer", ""}, {engine.Red, "move", "d5-c6"}},
		want: []wantEvent{
			{kind: EventCreated, ply: 0, pos: "R:RMd5:BPh1:0"},
			{kind: EventDrawOffered, ply: 0, side: engine.Red},
			{kind: EventMovePlayed, ply: 1, pos: "B:RMc6:BPh1:1"},
			{kind: EventEnded, ply: 1, outcome: engine.Outcome{Result: engine.RedWins, Reason: engine.Stalemate}, pos: "B:RMc6:BPh1:1"},
		},
	},
	{
		// Red's Damone must take Black's Damone (c4xe6); Black keeps its
		// Pedine, so the game ends on the Damone, not on all pieces.
		name:  "all Damones captured, an offer declined by that capture",
		start: "R:RMc4:BMd5,Pb7:0",
		damon: true,
		steps: []eventStep{{engine.Black, "offer", ""}, {engine.Red, "move", "c4xe6"}},
		want: []wantEvent{
			{kind: EventCreated, ply: 0, pos: "R:RMc4:BMd5,Pb7:0"},
			{kind: EventDrawOffered, ply: 0, side: engine.Black},
			{kind: EventDrawDeclined, ply: 0, side: engine.Red, byMove: true, pos: "R:RMc4:BMd5,Pb7:0"},
			{kind: EventMovePlayed, ply: 1, pos: "B:RMe6:BPb7:0"},
			{kind: EventEnded, ply: 1, outcome: engine.Outcome{Result: engine.RedWins, Reason: engine.AllDamonesCaptured}, pos: "B:RMe6:BPb7:0"},
		},
	},
	{
		// Both Damones step out and back twice: the start, Red to move,
		// occurs for the third time after ply 8. Black's offer on the way
		// is declined by Red's next move.
		name:  "repetition",
		start: "R:RMh1:BMa8:0",
		steps: []eventStep{
			{engine.Red, "move", "h1-g2"}, {engine.Black, "move", "a8-b7"}, {engine.Red, "move", "g2-h1"}, {engine.Black, "move", "b7-a8"},
			{engine.Black, "offer", ""},
			{engine.Red, "move", "h1-g2"}, {engine.Black, "move", "a8-b7"}, {engine.Red, "move", "g2-h1"}, {engine.Black, "move", "b7-a8"},
		},
		want: []wantEvent{
			{kind: EventCreated, ply: 0},
			{kind: EventMovePlayed, ply: 1, pos: "B:RMg2:BMa8:1"},
			{kind: EventMovePlayed, ply: 2, pos: "R:RMg2:BMb7:2"},
			{kind: EventMovePlayed, ply: 3, pos: "B:RMh1:BMb7:3"},
			{kind: EventMovePlayed, ply: 4, pos: "R:RMh1:BMa8:4"},
			{kind: EventDrawOffered, ply: 4, side: engine.Black, pos: "R:RMh1:BMa8:4"},
			{kind: EventDrawDeclined, ply: 4, side: engine.Red, byMove: true, pos: "R:RMh1:BMa8:4"},
			{kind: EventMovePlayed, ply: 5, pos: "B:RMg2:BMa8:5"},
			{kind: EventMovePlayed, ply: 6},
			{kind: EventMovePlayed, ply: 7},
			{kind: EventMovePlayed, ply: 8, pos: "R:RMh1:BMa8:8"},
			{kind: EventEnded, ply: 8, outcome: engine.Outcome{Result: engine.Draw, Reason: engine.Repetition}, pos: "R:RMh1:BMa8:8"},
		},
	},
	{
		// The start's counter is one below the default limit of 80: one
		// Damone step reaches it.
		name:  "no progress, an offer declined by that move",
		start: "R:RMh1:BMa8:79",
		steps: []eventStep{{engine.Black, "offer", ""}, {engine.Red, "move", "h1-g2"}},
		want: []wantEvent{
			{kind: EventCreated, ply: 0, pos: "R:RMh1:BMa8:79"},
			{kind: EventDrawOffered, ply: 0, side: engine.Black},
			{kind: EventDrawDeclined, ply: 0, side: engine.Red, byMove: true, pos: "R:RMh1:BMa8:79"},
			{kind: EventMovePlayed, ply: 1, pos: "B:RMg2:BMa8:80"},
			{kind: EventEnded, ply: 1, outcome: engine.Outcome{Result: engine.Draw, Reason: engine.NoProgress}, pos: "B:RMg2:BMa8:80"},
		},
	},
}

// runEventScenario creates the scenario's game, calls created with it,
// then makes the scenario's calls.
func runEventScenario(t *testing.T, s *Service, sc eventScenario, created func(*Game)) (*Game, engine.Variant) {
	t.Helper()
	ctx := context.Background()
	v := engine.DefaultVariant()
	if sc.start != "" {
		pos, err := engine.ParsePosition(sc.start)
		if err != nil {
			t.Fatal(err)
		}
		v.Setup, v.Start = engine.SetupCustom, pos
	}
	if sc.damon {
		v.WinCondition = engine.CaptureAllDamones
	}
	g, tok, err := s.Create(ctx, v)
	if err != nil {
		t.Fatal(err)
	}
	created(g)
	token := map[engine.Side]string{engine.Red: tok.Red, engine.Black: tok.Black}
	for _, st := range sc.steps {
		var err error
		switch st.act {
		case "move":
			_, err = s.MakeMove(ctx, MoveRequest{GameID: g.ID, Token: token[st.who], Move: st.arg})
		case "offer":
			_, err = s.OfferDraw(ctx, g.ID, token[st.who])
		case "accept", "decline":
			_, err = s.AnswerDrawOffer(ctx, g.ID, token[st.who], st.act == "accept")
		case "resign":
			_, err = s.Resign(ctx, g.ID, token[st.who])
		}
		if err != nil {
			t.Fatalf("%v %s %s: %v", st.who, st.act, st.arg, err)
		}
	}
	return g, v
}

// checkEventRules checks a game's whole event stream against want and
// against the positions of an engine replay of its moves.
func checkEventRules(t *testing.T, evs []Event, v engine.Variant, want []wantEvent) {
	t.Helper()
	eg, err := engine.NewGame(v)
	if err != nil {
		t.Fatal(err)
	}
	positions := []string{eg.Position().String()} // positions[k]: after k plies
	if len(evs) != len(want) {
		for _, e := range evs {
			t.Logf("event %d: %v ply %d %s", e.Sequence, e.Kind, e.Ply, e.Position.String())
		}
		t.Fatalf("%d events, want %d", len(evs), len(want))
	}
	for i, e := range evs {
		w := want[i]
		if e.Sequence != int64(i+1) {
			t.Errorf("event %d has sequence %d", i+1, e.Sequence)
		}
		if e.Kind != w.kind {
			t.Errorf("event %d: kind %v, want %v", e.Sequence, e.Kind, w.kind)
			continue
		}
		if e.Kind == EventMovePlayed {
			if _, err := eg.PlayText(e.Move.Move.String()); err != nil {
				t.Fatalf("event %d: the engine refuses %s: %v", e.Sequence, e.Move.Move.String(), err)
			}
			positions = append(positions, eg.Position().String())
		}
		if e.Ply != w.ply {
			t.Errorf("event %d (%v): ply %d, want %d", e.Sequence, e.Kind, e.Ply, w.ply)
		}
		if w.ply < len(positions) && e.Position.String() != positions[w.ply] {
			t.Errorf("event %d (%v): position %s, want the position after %d plies %s", e.Sequence, e.Kind, e.Position.String(), w.ply, positions[w.ply])
		}
		if w.pos != "" && e.Position.String() != w.pos {
			t.Errorf("event %d (%v): position %s, want %s", e.Sequence, e.Kind, e.Position.String(), w.pos)
		}
		switch e.Kind {
		case EventDrawOffered, EventDrawDeclined:
			if e.Side != w.side || e.ByMove != w.byMove {
				t.Errorf("event %d (%v): side %v by move %v, want %v, %v", e.Sequence, e.Kind, e.Side, e.ByMove, w.side, w.byMove)
			}
		case EventEnded:
			if e.Outcome != w.outcome {
				t.Errorf("event %d: outcome %v, want %v", e.Sequence, e.Outcome, w.outcome)
			}
		}
	}
}

// TestEventPlyAndPosition checks every event kind, in games that reach
// every outcome reason, against game.proto: `ply` is the number of plies
// played when the event happened, and `position` the position after it,
// which for any event but move_played is also the position before it. A
// draw offer declined by a move is declined before the move is played, so
// its event carries the ply and position before that move. Checked on the
// stored log and on a live watcher.
func TestEventPlyAndPosition(t *testing.T) {
	for _, sc := range eventScenarios {
		t.Run(sc.name, func(t *testing.T) {
			ctx := context.Background()
			s, _ := newTestService(t, Limits{})
			live := newRecorder()
			var done chan error
			g, v := runEventScenario(t, s, sc, func(g *Game) {
				done = watchAsync(s, ctx, g.ID, 0, live.send)
				live.waitSeq(t, 1) // subscribed: what follows is live
			})
			if err := waitDone(t, done); err != nil {
				t.Fatalf("live Watch: %v", err)
			}
			checkEventRules(t, live.events, v, sc.want)
			var replayed []Event
			if err := s.Watch(ctx, g.ID, 0, func(e *Event) error { replayed = append(replayed, *e); return nil }); err != nil {
				t.Fatalf("Watch: %v", err)
			}
			checkEventRules(t, replayed, v, sc.want)
		})
	}
}
