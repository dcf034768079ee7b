package validation

import (
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
