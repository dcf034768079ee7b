package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"

	"google.golang.org/grpc/metadata"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
	"github.com/damone-rules/damone/internal/engine"
)

// A player plays the games of one worker through GameService, both
// sides, mirroring each game with the engine to choose legal moves: a
// random legal move (from its own seeded generator), or with a cycle the
// cycle's moves in turn. When a game ends, the next call starts another.
type player struct {
	view    damonev1.GameView // of MakeMove's answers
	client  damonev1.GameServiceClient
	rng     *rand.Rand
	variant *damonev1.Variant // nil: the standard game
	ev      engine.Variant    // the same, for the mirror
	cycle   []string          // moves played in turn instead of random ones

	name   string
	tokens [2]string // red, black
	game   *engine.Game
}

// newPlayer returns a player of standard games with random moves.
func newPlayer(client damonev1.GameServiceClient, seed uint64) *player {
	return &player{client: client, rng: rand.New(rand.NewPCG(seed, 0xda3011e)), ev: engine.DefaultVariant()}
}

// longGamePosition is the start of the long game: a Damone each, in
// opposite corners. With repetition_draw and the no-progress rule off
// the game never ends while each side steps out of its corner and back
// (longGameCycle, legal by RULES.md, Moves: a Damone steps to any
// diagonal neighbour).
const longGamePosition = "R:RMh1:BMa8:0"

var longGameCycle = []string{"h1-g2", "a8-b7", "g2-h1", "b7-a8"}

// newLongGamePlayer returns a player of a game that can go on for ever.
func newLongGamePlayer(client damonev1.GameServiceClient) (*player, error) {
	start, err := engine.ParsePosition(longGamePosition)
	if err != nil {
		return nil, err
	}
	off := false
	zero := int32(0)
	return &player{
		client:  client,
		variant: &damonev1.Variant{Start: &damonev1.Variant_StartPosition{StartPosition: &damonev1.Position{Text: longGamePosition}}, RepetitionDraw: &off, NoProgressLimit: &zero},
		ev:      engine.Variant{Setup: engine.SetupCustom, Start: start, WinCondition: engine.CaptureAllPieces},
		cycle:   longGameCycle,
	}, nil
}

// newGame creates the player's next game.
func (p *player) newGame(ctx context.Context) error {
	resp, err := p.client.CreateGame(ctx, &damonev1.CreateGameRequest{Game: &damonev1.Game{Variant: p.variant}})
	if err != nil {
		return fmt.Errorf("CreateGame: %w", err)
	}
	g, err := engine.NewGame(p.ev)
	if err != nil {
		return err
	}
	p.name, p.tokens, p.game = resp.GetGame().GetName(), [2]string{resp.GetRedToken(), resp.GetBlackToken()}, g
	if g.Outcome().Over() {
		return fmt.Errorf("%s: the start is over (%v)", p.name, g.Outcome())
	}
	return nil
}

// ready makes sure the player has a game in progress.
func (p *player) ready(ctx context.Context) error {
	if p.game == nil || p.game.Outcome().Over() {
		return p.newGame(ctx)
	}
	return nil
}

// choose returns the next move of the game in progress.
func (p *player) choose() (engine.Move, error) {
	pos := p.game.Position()
	legal := pos.LegalMoves()
	if len(legal) == 0 {
		return engine.Move{}, errors.New("no legal move in a game in progress")
	}
	if p.cycle == nil {
		return legal[p.rng.IntN(len(legal))], nil
	}
	want := p.cycle[p.game.Ply()%len(p.cycle)]
	for _, m := range legal {
		if m.String() == want {
			return m, nil
		}
	}
	return engine.Move{}, fmt.Errorf("%s is not legal at ply %d", want, p.game.Ply())
}

// authCtx is ctx with the token of the side to move.
func (p *player) authCtx(ctx context.Context) context.Context {
	side := 0
	if pos := p.game.Position(); pos.SideToMove() == engine.Black {
		side = 1
	}
	return metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+p.tokens[side])
}

// send asks the server to play m (with request id id, if not empty) and
// checks the answer: the move in full and the game's new ply.
func (p *player) send(ctx context.Context, m engine.Move, id string) (*damonev1.MakeMoveResponse, error) {
	resp, err := p.client.MakeMove(p.authCtx(ctx), &damonev1.MakeMoveRequest{Name: p.name, Move: m.String(), RequestId: id, View: p.view})
	if err != nil {
		return nil, err
	}
	if got := resp.GetMove().GetNotation(); got != m.String() {
		return nil, fmt.Errorf("%s ply %d: played %q, answered %q", p.name, p.game.Ply()+1, m.String(), got)
	}
	if got := resp.GetGame().GetPly(); got != int32(p.game.Ply()+1) {
		return nil, fmt.Errorf("%s: move %s answered with ply %d, want %d", p.name, m.String(), got, p.game.Ply()+1)
	}
	return resp, nil
}

// played records m, acknowledged by the server, in the mirror.
func (p *player) played(m engine.Move) error { return p.game.Play(m) }
