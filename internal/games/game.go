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
// change; the etag is derived from it. A store keeps the moves apart from
// the rest (they are in the game's event log), so reading or changing a
// game costs the same at any length: Moves is filled only when asked for
// (Service.WithMoves), and Plies and Recent are what a move needs.
type Game struct {
	ID       string
	Variant  engine.Variant
	Initial  engine.Position
	Position engine.Position
	// Plies is the number of moves played.
	Plies int
	// Recent holds the positions before Position that the repetition rule
	// can still count (engine.Game.Recent), oldest first.
	Recent []engine.Position
	// Moves holds every move played when the game was read with them
	// (len(Moves) == Plies); nil otherwise.
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
	// TimeControl is the game's time control (none: the zero value), and
	// Clock its clocks' state: nil without a time control (clock.go).
	TimeControl TimeControl
	Clock       *Clock
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
func (g *Game) Ply() int { return g.Plies }

// HasMoves reports whether g was read with its moves.
func (g *Game) HasMoves() bool { return len(g.Moves) == g.Plies }

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
	c.Recent = append([]engine.Position(nil), g.Recent...)
	c.Clock = g.Clock.clone()
	if g.Moves != nil {
		c.Moves = make([]PlayedMove, len(g.Moves))
		for i, m := range g.Moves {
			c.Moves[i] = m
			c.Moves[i].Captured = append([]engine.PlacedPiece(nil), m.Captured...)
		}
	}
	return &c
}

// Head returns a copy of g without its moves: what a store keeps in the
// game's own record.
func (g *Game) Head() *Game {
	c := *g
	c.Moves = nil
	c.Recent = append([]engine.Position(nil), g.Recent...)
	c.Clock = g.Clock.clone()
	if g.Engine != nil {
		e := *g.Engine
		c.Engine = &e
	}
	return &c
}

// continued returns the engine's game going on from g's position, with
// the positions the repetition rule still counts: the same work at any
// ply.
func (g *Game) continued() (*engine.Game, error) {
	return engine.ContinueGame(g.Variant, g.Recent, g.Position)
}

// replay rebuilds the engine's game by playing the moves again from the
// initial position; g must have its moves.
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

// asOf returns the game (read with its moves) as the move recorded by rec
// left it (the first response to that request): its first rec.Ply moves,
// with the position and outcome they lead to, and the version, last
// event, update time, pending offer and clocks recorded then (a record
// written before it kept the clocks leaves them as they are now).
func (g *Game) asOf(rec RequestRecord) (*Game, error) {
	c := g.Clone()
	c.Moves, c.Plies = c.Moves[:rec.Ply], rec.Ply
	eg, err := c.replay()
	if err != nil {
		return nil, err
	}
	c.Position, c.Outcome, c.Recent = eg.Position(), eg.Outcome(), eg.Recent()
	c.Version, c.LastEvent, c.UpdateTime = rec.Version, rec.LastEvent, rec.Time
	c.HasOffer, c.DrawOffer = rec.HasOffer, rec.DrawOffer
	if rec.Clock != nil {
		c.Clock = rec.Clock.clone()
	}
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
	// Clock is the game's clocks after the event (Since is the event's
	// time); nil in a game without a time control.
	Clock *Clock

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
