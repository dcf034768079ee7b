// Package games keeps stateful games of Italian Damone: creating them,
// playing moves with per-side tokens, draw offers and resignation, the
// per-game event log and live watching. It uses the engine for every rule
// and knows nothing of any transport; storage sits behind Store.
package games

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/damone-rules/damone/internal/engine"
)

// PlayedMove is a move as played in a game, with what it captured (ranks
// are known only in the position before the move).
type PlayedMove struct {
	Move     engine.Move
	Side     engine.Side
	Captured []engine.PlacedPiece
}

// Game is one game's stored state. Version increases by one with every
// change; the etag is derived from it.
type Game struct {
	ID         string
	Variant    engine.Variant
	Initial    engine.Position
	Position   engine.Position
	Moves      []PlayedMove
	Outcome    engine.Outcome
	DrawOffer  engine.Side // valid when HasDrawOffer
	HasOffer   bool
	Version    int64
	LastEvent  int64 // sequence number of the game's latest event
	CreateTime time.Time
	UpdateTime time.Time
	// TokenHash holds the SHA-256 of each side's token; the tokens
	// themselves are never stored.
	TokenHash [2][32]byte
	// Engine, if set, names the side the engine plays and how hard it
	// thinks.
	Engine *EngineOpponent
}

// EngineOpponent is the engine as a player: its side and its strength
// (a time per move, or a depth; the service's cap on thinking time
// applies to both).
type EngineOpponent struct {
	Side     engine.Side
	MoveTime time.Duration
	Depth    int
}

// EngineToMove reports whether the engine is to move in a game going on.
func (g *Game) EngineToMove() bool {
	return g.Engine != nil && !g.Over() && g.Position.SideToMove() == g.Engine.Side
}

// Ply returns the number of moves played.
func (g *Game) Ply() int { return len(g.Moves) }

// Over reports whether the game has ended.
func (g *Game) Over() bool { return g.Outcome.Over() }

// Etag returns the game's entity tag, e.g. "7-1f3a9c": it changes with
// every change to the game, so a client can make a change conditional on
// what it last read. The version number with a short digest of the game
// and version keeps it opaque: clients compare it, never parse it.
func (g *Game) Etag() string {
	sum := sha256.Sum256([]byte(g.ID + "/" + strconv.FormatInt(g.Version, 10)))
	return strconv.FormatInt(g.Version, 10) + "-" + hex.EncodeToString(sum[:3])
}

// Clone returns a deep copy, so a store can hand out games that callers
// may change without touching what it holds.
func (g *Game) Clone() *Game {
	c := *g
	if g.Engine != nil {
		e := *g.Engine
		c.Engine = &e
	}
	c.Moves = make([]PlayedMove, len(g.Moves))
	for i, m := range g.Moves {
		c.Moves[i] = m
		c.Moves[i].Captured = append([]engine.PlacedPiece(nil), m.Captured...)
	}
	return &c
}

// replay rebuilds the engine's game record (needed for the repetition
// rule) by playing the moves again from the initial position.
func (g *Game) replay() (*engine.Game, error) {
	v := g.Variant
	v.Setup, v.Start = engine.SetupCustom, g.Initial
	eg, err := engine.NewGame(v)
	if err != nil {
		return nil, err
	}
	for _, m := range g.Moves {
		if err := eg.Play(m.Move); err != nil {
			return nil, err
		}
	}
	return eg, nil
}

// asOf returns the game as the move recorded by rec left it (the first
// response to that request): its first rec.Ply moves, with the position
// and outcome they lead to, and the version, last event, update time and
// pending offer recorded then.
func (g *Game) asOf(rec RequestRecord) (*Game, error) {
	c := g.Clone()
	c.Moves = c.Moves[:rec.Ply]
	eg, err := c.replay()
	if err != nil {
		return nil, err
	}
	c.Position, c.Outcome = eg.Position(), eg.Outcome()
	c.Version, c.LastEvent, c.UpdateTime = rec.Version, rec.LastEvent, rec.Time
	c.HasOffer, c.DrawOffer = rec.HasOffer, rec.DrawOffer
	return c, nil
}

// EventKind says what happened in a game event.
type EventKind uint8

const (
	EventCreated EventKind = iota + 1
	EventMovePlayed
	EventDrawOffered
	EventDrawDeclined
	EventEnded
)

func (k EventKind) String() string {
	switch k {
	case EventCreated:
		return "created"
	case EventMovePlayed:
		return "move played"
	case EventDrawOffered:
		return "draw offered"
	case EventDrawDeclined:
		return "draw declined"
	case EventEnded:
		return "ended"
	}
	return "EventKind(" + strconv.Itoa(int(k)) + ")"
}

// Event is one entry of a game's event log. Sequence numbers start at 1
// (the created event) and increase by one per event of the game.
type Event struct {
	GameID   string
	Sequence int64
	Time     time.Time
	Kind     EventKind
	Ply      int             // moves played after the event
	Position engine.Position // the position after the event
	Variant  engine.Variant  // EventCreated
	Move     PlayedMove      // EventMovePlayed
	Side     engine.Side     // EventDrawOffered: who offered; EventDrawDeclined: who declined
	ByMove   bool            // EventDrawDeclined: declined by playing a move
	Outcome  engine.Outcome  // EventEnded

	// rendered holds a transport's rendering of the event, made once and
	// shared by every watcher that receives this same live event (see
	// Rendered); copies of the event share it. Nil for events read back
	// from a store.
	rendered *renderCache
}

type renderCache struct{ v atomic.Pointer[any] }

// Rendered returns render(e), computing it at most once per live event
// however many watchers send it. render must not depend on the watcher.
func (e *Event) Rendered(render func(*Event) any) any {
	if e.rendered == nil {
		return render(e)
	}
	if r := e.rendered.v.Load(); r != nil {
		return *r
	}
	v := render(e)
	e.rendered.v.CompareAndSwap(nil, &v)
	return v
}

// Final reports whether the event ends the game's stream.
func (e *Event) Final() bool { return e.Kind == EventEnded }
