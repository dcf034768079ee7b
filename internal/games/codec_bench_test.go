package games

import (
	"testing"

	"github.com/damone-rules/damone/internal/engine"
)

// benchGame is a game record as a move in a long reversible stretch of a
// standard game writes it: 40 positions in the repetition window.
func benchGame(b *testing.B) *Game {
	v := engine.DefaultVariant()
	start, err := v.InitialPosition()
	if err != nil {
		b.Fatal(err)
	}
	g := &Game{ID: "0194d3a2-7c1e-7b3a-9f1e-2a3b4c5d6e7f", Variant: v, Initial: start, Position: start, Plies: 40, Version: 41, LastEvent: 41}
	for range 40 {
		g.Recent = append(g.Recent, start)
	}
	return g
}

func BenchmarkEncodeGame(b *testing.B) {
	g := benchGame(b)
	for b.Loop() {
		if _, err := EncodeGame(g); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeGame(b *testing.B) {
	data, err := EncodeGame(benchGame(b))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := DecodeGame(data); err != nil {
			b.Fatal(err)
		}
	}
}
