package validation

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/refgames"
)

// refVariant reads a reference game's variant (the API's JSON) into the
// engine's settings with the API's defaults: repetition on, limit 80.
func refVariant(t *testing.T, raw json.RawMessage) engine.Variant {
	t.Helper()
	var j struct {
		Setup          string                 `json:"setup"`
		StartPosition  *struct{ Text string } `json:"start_position"`
		WinCondition   string                 `json:"win_condition"`
		FirstPlayer    string                 `json:"first_player"`
		RepetitionDraw *bool                  `json:"repetition_draw"`
		NoProgress     *int                   `json:"no_progress_limit"`
	}
	if err := json.Unmarshal(raw, &j); err != nil {
		t.Fatal(err)
	}
	v := engine.DefaultVariant()
	switch j.Setup {
	case "", "SETUP_STANDARD":
	case "SETUP_NO_DAMONE":
		v.Setup = engine.SetupNoDamone
	default:
		t.Fatalf("setup %q", j.Setup)
	}
	if j.StartPosition != nil {
		p, err := engine.ParsePosition(j.StartPosition.Text)
		if err != nil {
			t.Fatalf("start %q: %v", j.StartPosition.Text, err)
		}
		v.Setup, v.Start = engine.SetupCustom, p
	}
	if j.WinCondition == "WIN_CONDITION_CAPTURE_ALL_DAMONES" {
		v.WinCondition = engine.CaptureAllDamones
	}
	if j.FirstPlayer == "SIDE_BLACK" {
		v.FirstPlayer = engine.Black
	}
	if j.RepetitionDraw != nil {
		v.RepetitionDraw = *j.RepetitionDraw
	}
	if j.NoProgress != nil {
		v.NoProgressLimit = *j.NoProgress
	}
	return v
}

var refResults = map[engine.Result]string{
	engine.RedWins: "OUTCOME_RESULT_RED_WINS", engine.BlackWins: "OUTCOME_RESULT_BLACK_WINS", engine.Draw: "OUTCOME_RESULT_DRAW",
}

var refReasons = map[engine.Reason]string{
	engine.AllPiecesCaptured: "OUTCOME_REASON_ALL_PIECES_CAPTURED", engine.Stalemate: "OUTCOME_REASON_STALEMATE",
	engine.AllDamonesCaptured: "OUTCOME_REASON_ALL_DAMONES_CAPTURED", engine.Repetition: "OUTCOME_REASON_REPETITION",
	engine.NoProgress: "OUTCOME_REASON_NO_PROGRESS",
}

// TestReferenceGames judges every reference game (shared/games.jsonl,
// worked out independently from RULES.md) and checks every field.
func TestReferenceGames(t *testing.T) {
	games, err := refgames.Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(games) < 500 {
		t.Fatalf("%d reference games, want the whole file", len(games))
	}
	kinds := map[string]int{}
	for _, g := range games {
		v := refVariant(t, g.Variant)
		got, err := Game(v, g.Moves, Options{Positions: true})
		if err != nil {
			t.Errorf("%s: %v", g.ID, err)
			continue
		}
		e := g.Expected
		if got.Valid() != e.Valid || got.IllegalPly != e.FirstIllegalPly || len(got.Moves) != e.Ply {
			t.Errorf("%s: valid %v, first illegal ply %d (%v), ply %d; want %v, %d, %d",
				g.ID, got.Valid(), got.IllegalPly, got.Err, len(got.Moves), e.Valid, e.FirstIllegalPly, e.Ply)
		}
		if len(got.Positions) != len(got.Moves) {
			t.Errorf("%s: %d positions for %d plies", g.ID, len(got.Positions), len(got.Moves))
		}
		if s := got.Final.String(); s != e.FinalPosition {
			t.Errorf("%s: final position %s, want %s", g.ID, s, e.FinalPosition)
		}
		switch {
		case e.Outcome == nil && got.Outcome.Over():
			t.Errorf("%s: ended %v at ply %d, want no ending", g.ID, got.Outcome, got.EndPly)
		case e.Outcome != nil && (refResults[got.Outcome.Result] != e.Outcome.Result ||
			refReasons[got.Outcome.Reason] != e.Outcome.Reason || e.EndPly == nil || got.EndPly != *e.EndPly):
			t.Errorf("%s: outcome %v at ply %d, want %s %s at %v", g.ID, got.Outcome, got.EndPly,
				e.Outcome.Result, e.Outcome.Reason, *e.EndPly)
		}
		if e.Outcome != nil {
			kinds[e.Outcome.Reason]++
		}
		if !e.Valid && e.Outcome != nil && e.FirstIllegalPly == *e.EndPly+1 && !errors.Is(got.Err, engine.ErrGameOver) {
			t.Errorf("%s: move after the end refused with %v, want ErrGameOver", g.ID, got.Err)
		}
	}
	t.Logf("%d reference games; endings %v", len(games), kinds)
}
