package storetest

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/games"
	"github.com/damone-rules/damone/internal/pdn"
	"github.com/damone-rules/damone/internal/validation"
)

// recordingStore remembers the id of every game created through it, so
// the suite can check each stored game once its test is done.
type recordingStore struct {
	games.Store
	mu  sync.Mutex
	ids []string
}

func (s *recordingStore) Create(ctx context.Context, g *games.Game, events []games.Event) error {
	err := s.Store.Create(ctx, g, events)
	if err == nil {
		s.mu.Lock()
		s.ids = append(s.ids, g.ID)
		s.mu.Unlock()
	}
	return err
}

// checkPDNRoundTrips exports every game the test stored as PDN
// (docs/notation.md, PDN), reads the record back, and replays it under
// the variant its tags give: the variant, the moves and the outcome must
// be the stored game's. An outcome the rules decide must come out of the
// replay at the last ply; one recorded outside them (resignation, agreed
// draw, timeout, abort) leaves the replay going on, and only the result
// token keeps it ("*" for an aborted game, which has no result).
func checkPDNRoundTrips(t *testing.T, s *recordingStore) {
	t.Helper()
	for _, id := range s.ids {
		g, err := s.Get(context.Background(), id)
		if errors.Is(err, games.ErrNotFound) {
			continue
		}
		if err != nil {
			t.Fatalf("Get(%s): %v", id, err)
		}
		// The moves are in the event log (a store keeps no copy with the
		// game), one move_played event per ply.
		evs, err := s.Events(context.Background(), id, 0, 1<<20)
		if err != nil {
			t.Fatalf("Events(%s): %v", id, err)
		}
		var moves []engine.Move
		var notation []string
		for _, e := range evs {
			if e.Kind == games.EventMovePlayed {
				moves, notation = append(moves, e.Move.Move), append(notation, e.Move.Move.String())
			}
		}
		if len(moves) != g.Ply() {
			t.Fatalf("game %s at ply %d has %d move_played events", id, g.Ply(), len(moves))
		}
		var b strings.Builder
		if err := pdn.Write(&b, pdn.FromGame(g.Variant, moves, g.Outcome, pdn.Tag{Name: "Site", Value: "games/" + g.ID})); err != nil {
			t.Fatalf("game %s: export: %v", id, err)
		}
		rec, err := pdn.ParseGame(b.String())
		if err != nil {
			t.Fatalf("game %s: the export does not read back: %v\n%s", id, err, b.String())
		}
		v, err := rec.Variant()
		if err != nil {
			t.Fatalf("game %s: the export's tags give no variant: %v\n%s", id, err, b.String())
		}
		if !sameRules(v, g.Variant, g.Initial) {
			t.Errorf("game %s: variant %+v read back as %+v", id, g.Variant, v)
		}
		if strings.Join(rec.Moves, " ") != strings.Join(notation, " ") {
			t.Errorf("game %s: moves %v read back as %v", id, notation, rec.Moves)
		}
		verdict, err := validation.Game(v, rec.Moves, validation.Options{})
		if err != nil || !verdict.Valid() || len(verdict.Moves) != g.Ply() {
			t.Fatalf("game %s: the replay refuses the record: %v %+v", id, err, verdict)
		}
		want := map[engine.Result]string{engine.Ongoing: "*", engine.RedWins: "1-0", engine.BlackWins: "0-1", engine.Draw: "1/2-1/2", engine.NoResult: "*"}[g.Outcome.Result]
		if rec.Result != want {
			t.Errorf("game %s: outcome %v exported as result %q, want %q", id, g.Outcome, rec.Result, want)
		}
		switch g.Outcome.Reason {
		case engine.Resignation, engine.AgreedDraw, engine.Timeout, engine.Aborted:
			if verdict.Outcome.Over() {
				t.Errorf("game %s: ended by %v, but the replay ends it %v", id, g.Outcome.Reason, verdict.Outcome)
			}
		default:
			if verdict.Outcome != g.Outcome || (g.Outcome.Over() && verdict.EndPly != g.Ply()) {
				t.Errorf("game %s: outcome %v, replayed as %v at ply %d", id, g.Outcome, verdict.Outcome, verdict.EndPly)
			}
		}
	}
}

// sameRules compares a variant read back with a stored one: the same
// setup, start, win condition and draw rules. The first player of a
// custom start is its side to move, whatever the stored variant says.
func sameRules(got, stored engine.Variant, initial engine.Position) bool {
	win := func(w engine.WinCondition) engine.WinCondition {
		if w == 0 {
			return engine.CaptureAllPieces
		}
		return w
	}
	start, err := got.InitialPosition()
	return err == nil && got.Setup == stored.Setup && start.String() == initial.String() &&
		win(got.WinCondition) == win(stored.WinCondition) && got.RepetitionDraw == stored.RepetitionDraw &&
		got.NoProgressLimit == stored.NoProgressLimit &&
		(stored.Setup == engine.SetupCustom || got.FirstPlayer == stored.FirstPlayer)
}
