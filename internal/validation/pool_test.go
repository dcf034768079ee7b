package validation

import (
	"runtime"
	"slices"
	"testing"

	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/validation/benchgames"
)

// Games are judged on recycled engine games: a verdict keeps its moves,
// positions and final position while later games are judged.
func TestVerdictsSurviveLaterGames(t *testing.T) {
	games, err := benchgames.Games(5, 8, 60)
	if err != nil {
		t.Fatal(err)
	}
	v := engine.DefaultVariant()
	var verdicts []*Verdict
	var finals []string
	for _, moves := range games {
		got, err := Game(v, moves, Options{Positions: true})
		if err != nil || !got.Valid() {
			t.Fatalf("%v, %v", err, got.Err)
		}
		verdicts = append(verdicts, got)
		finals = append(finals, got.Final.String())
	}
	for i, got := range verdicts {
		var texts []string
		for _, m := range got.Moves {
			texts = append(texts, m.String())
		}
		if !slices.Equal(texts, games[i]) || got.Final.String() != finals[i] ||
			got.Positions[len(got.Positions)-1].String() != finals[i] {
			t.Fatalf("game %d: verdict changed by later games: moves %q, final %s", i, texts, got.Final.String())
		}
	}
}

// A record refused at its first ply costs what one ply costs, however many
// plies it lists after it (issue 24: a 50 MB record of 8.7 M plies, illegal
// at ply 1, reserved room for all of them first).
func TestLongRecordIllegalAtFirstPlyReservesLittle(t *testing.T) {
	moves := make([]string, 1_000_000)
	for i := range moves {
		moves[i] = "a1-b2" // a1 is empty at the start: illegal at ply 1
	}
	v := engine.DefaultVariant()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	got, err := Game(v, moves, Options{Positions: true})
	runtime.ReadMemStats(&after)
	if err != nil || got.IllegalPly != 1 {
		t.Fatalf("want illegal at ply 1, got %v, ply %d", err, got.IllegalPly)
	}
	// A million plies of moves and positions would be well over 100 MB;
	// 512 plies' worth is under 1 MB.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
		t.Fatalf("judging a record illegal at ply 1 allocated %d bytes, want under 4 MiB", alloc)
	}
}
