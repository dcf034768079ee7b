// Package refgames holds the project's reference games: whole games worked
// out independently from RULES.md (a copy of shared/games.jsonl), each
// with the verdict every path of the service must give. Tests of the
// validation package, the game service, the RPCs and the interop clients
// read them from here.
package refgames

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
)

//go:embed games.jsonl
var data []byte

// Game is one reference game.
type Game struct {
	ID string `json:"id"`
	// Variant is the rule settings in the API's JSON (damone.v1.Variant).
	Variant json.RawMessage `json:"variant"`
	// Moves are the moves as given, some deliberately illegal or garbage.
	Moves    []string `json:"moves"`
	Expected Expected `json:"expected"`
}

// Expected is the verdict on a reference game.
type Expected struct {
	Valid bool `json:"valid"`
	// FirstIllegalPly is 1-based, 0 when valid; a move after the game
	// ended is illegal at its ply.
	FirstIllegalPly int `json:"first_illegal_ply"`
	// Ply is the number of legal plies played.
	Ply int `json:"ply"`
	// EndPly is the ply at which the game ended, nil if it did not.
	EndPly *int `json:"end_ply"`
	// Outcome is set when the game ended: result and reason as the API's
	// enum value names.
	Outcome *struct {
		Result string `json:"result"`
		Reason string `json:"reason"`
	} `json:"outcome"`
	// FinalPosition is the position text after the last legal ply.
	FinalPosition string `json:"final_position"`
}

// JSONL returns the games file as it is, one JSON object a line.
func JSONL() []byte { return data }

// Load returns every reference game, in file order.
func Load() ([]Game, error) {
	var out []Game
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		var g Game
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			return nil, fmt.Errorf("games.jsonl line %d: %w", n, err)
		}
		out = append(out, g)
	}
	return out, sc.Err()
}
