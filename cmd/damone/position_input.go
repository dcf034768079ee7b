package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/damone-rules/damone/internal/cli"
	"github.com/damone-rules/damone/internal/engine"
)

// positionJSON is the structured position form shared with the API's JSON:
// {"side_to_move": "red", "pieces": [{"square": "h1", "side": "red",
// "rank": "damone"}], "no_progress_plies": 0}. Side and rank names are
// accepted in any case, with or without their enum prefix (SIDE_RED).
type positionJSON struct {
	SideToMove      string      `json:"side_to_move"`
	Pieces          []pieceJSON `json:"pieces"`
	NoProgressPlies int         `json:"no_progress_plies"`
	Text            string      `json:"text,omitempty"`
}

type pieceJSON struct {
	Square string `json:"square"`
	Side   string `json:"side"`
	Rank   string `json:"rank"`
}

// decodePositionJSON reads the structured form; when it carries only its
// text form, that is used.
func decodePositionJSON(r io.Reader) (engine.Position, error) {
	dec := json.NewDecoder(r)
	var pj positionJSON
	if err := dec.Decode(&pj); err != nil {
		return engine.Position{}, fmt.Errorf("position JSON: %w", err)
	}
	if pj.SideToMove == "" && len(pj.Pieces) == 0 && pj.Text != "" {
		return engine.ParsePosition(pj.Text)
	}
	if pj.SideToMove == "" {
		return engine.Position{}, fmt.Errorf("position JSON: side_to_move is missing")
	}
	stm, err := engine.ParseSide(pj.SideToMove)
	if err != nil {
		return engine.Position{}, fmt.Errorf("position JSON: side_to_move: %w", err)
	}
	pieces := make([]engine.PlacedPiece, 0, len(pj.Pieces))
	for i, p := range pj.Pieces {
		at, err := engine.ParseSquare(p.Square)
		if err != nil {
			return engine.Position{}, fmt.Errorf("position JSON: pieces[%d].square: %w", i, err)
		}
		side, err := engine.ParseSide(p.Side)
		if err != nil {
			return engine.Position{}, fmt.Errorf("position JSON: pieces[%d].side: %w", i, err)
		}
		rank, err := engine.ParseRank(p.Rank)
		if err != nil {
			return engine.Position{}, fmt.Errorf("position JSON: pieces[%d].rank: %w", i, err)
		}
		pieces = append(pieces, engine.PlacedPiece{Square: at, Piece: engine.Piece{Side: side, Rank: rank}})
	}
	return engine.NewPosition(stm, pieces, pj.NoProgressPlies)
}

// positionFlags are the ways a command is given its position.
type positionFlags struct {
	text, jsonText, setup, first string
}

func (f *positionFlags) resolve(stdin io.Reader) (engine.Position, error) {
	if f.text != "" && f.jsonText != "" {
		return engine.Position{}, cli.Usagef("give --position or --position-json, not both")
	}
	switch {
	case f.text != "":
		return engine.ParsePosition(f.text)
	case f.jsonText == "-":
		return decodePositionJSON(stdin)
	case f.jsonText != "":
		return decodePositionJSON(strings.NewReader(f.jsonText))
	}
	setup, err := engine.ParseSetup(f.setup)
	if err != nil {
		return engine.Position{}, cli.Usagef("--variant: %v", err)
	}
	first, err := engine.ParseSide(f.first)
	if err != nil {
		return engine.Position{}, cli.Usagef("--first: %v", err)
	}
	return engine.StartPosition(setup, first)
}
