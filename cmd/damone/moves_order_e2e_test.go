package main

// `damone moves` lists a position's moves in the order the API does
// (issue 13, departure 11): docs/api.md says ListLegalMoves returns them
// "sorted by notation".

import (
	"encoding/json"
	"math/rand"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/damone-rules/damone/internal/engine"
)

// The standard start's eight moves for Red, in notation order (svOpening,
// worked out by hand from RULES.md), as text and as JSON.
func TestMovesCommandSortedByNotation(t *testing.T) {
	want := strings.Split(svOpening, ",")
	out, errOut, code := runCLI(t, "", "moves")
	if got := strings.Fields(out); code != 0 || !slices.Equal(got, want) {
		t.Errorf("damone moves = %v (exit %d, %s), want %v", got, code, errOut, want)
	}
	out, errOut, code = runCLI(t, "", "moves", "--json")
	var moves []struct{ Notation string }
	if err := json.Unmarshal([]byte(out), &moves); err != nil || code != 0 {
		t.Fatalf("damone moves --json: exit %d, %v: %s%s", code, err, out, errOut)
	}
	var got []string
	for _, m := range moves {
		got = append(got, m.Notation)
	}
	if !slices.Equal(got, want) {
		t.Errorf("damone moves --json notations = %v, want %v", got, want)
	}
}

// On positions along random games (captures, promotions, both sides), the
// CLI's list is the API's list, element by element.
func TestMovesCommandMatchesAPIOrder(t *testing.T) {
	s := svStart(t)
	rng := rand.New(rand.NewSource(13))
	var positions []string
	for _, setup := range []engine.Setup{engine.SetupStandard, engine.SetupNoDamone} {
		for _, first := range []engine.Side{engine.Red, engine.Black} {
			p, err := engine.StartPosition(setup, first)
			if err != nil {
				t.Fatal(err)
			}
			for range 60 {
				moves := p.LegalMoves()
				if len(moves) == 0 {
					break
				}
				positions = append(positions, p.String())
				p = p.After(&moves[rng.Intn(len(moves))])
			}
		}
	}
	multi := 0
	for _, pos := range positions {
		out, errOut, code := runCLI(t, "", "moves", "--position", pos)
		if code != 0 {
			t.Fatalf("damone moves --position %s: exit %d: %s", pos, code, errOut)
		}
		status, body := svHTTP(t, http.MethodPost, s.url("/v1/rules:listLegalMoves"), "", map[string]any{"position": map[string]string{"text": pos}})
		if status != http.StatusOK {
			t.Fatalf("listLegalMoves %s: %d %s", pos, status, body)
		}
		var resp struct{ Moves []struct{ Notation string } }
		if err := json.Unmarshal(body, &resp); err != nil {
			t.Fatal(err)
		}
		var api []string
		for _, m := range resp.Moves {
			api = append(api, m.Notation)
		}
		if cli := strings.Fields(out); !slices.Equal(cli, api) {
			t.Errorf("%s: damone moves = %v, the API lists %v", pos, cli, api)
		}
		if len(api) > 1 {
			multi++
		}
	}
	if multi < 50 {
		t.Errorf("only %d positions with several moves: the comparison proves little", multi)
	}
}
