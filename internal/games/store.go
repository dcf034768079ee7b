package games

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/damone-rules/damone/internal/engine"
)

// Store errors. Implementations return these (possibly wrapped) so the
// service can tell a missing game or a lost race from a failure.
var (
	ErrNotFound         = errors.New("not found")
	ErrConflict         = errors.New("the game changed since it was read")
	ErrDuplicateRequest = errors.New("request id already used for this game")
)

// StatusFilter selects games by whether they have ended.
type StatusFilter uint8

const (
	AnyStatus StatusFilter = iota
	InProgress
	Finished
)

// ListQuery selects a page of games in creation order. A store answers
// it at a cost that grows with Limit (and the page's moves, with Moves),
// not with the number of games it holds, whatever the Status filter.
type ListQuery struct {
	After  string // list games created after the game with this id ("" = from the first)
	Limit  int    // at most this many games
	Status StatusFilter
	// Moves asks for each game's Moves too, read with the page (one read
	// of the store, not one per game).
	Moves bool
}

// SetMoves fills g.Moves with the first g.Plies moves of events, the
// game's log from its first event in sequence order (it may run past
// g: the log only grows). It fails, naming the game, if the log has
// fewer moves or they are out of order.
func SetMoves(g *Game, events []Event) error {
	moves := make([]PlayedMove, 0, g.Plies)
	for i := range events {
		if len(moves) == g.Plies {
			break
		}
		e := &events[i]
		if e.Kind != EventMovePlayed {
			continue
		}
		if e.Ply != len(moves)+1 {
			return fmt.Errorf("game %s: event %d is ply %d, after %d moves", g.ID, e.Sequence, e.Ply, len(moves))
		}
		moves = append(moves, e.Move)
	}
	if len(moves) < g.Plies {
		return fmt.Errorf("game %s: its event log has %d of its %d moves", g.ID, len(moves), g.Plies)
	}
	g.Moves = moves
	return nil
}

// RequestRecord remembers the change made under a client's request id on
// one game (a move, a resignation, a draw offer or answer), so a retry
// returns the first result and changes nothing twice. For a move it keeps
// what the game's moves cannot tell again of the state after the move:
// the version (etag), last event, update time, pending offer and clocks;
// records written before it kept them have Version 0. For any other call
// (Call set) it keeps the game after the change as its stored record
// (Head), without the moves, which the game's log still has.
type RequestRecord struct {
	RequestID string
	Call      Call   // CallMove for a move (and every record written before calls had names)
	Move      string // a move's notation, as the request gave it
	Ply       int    // the game's ply after the change
	Sequence  int64  // the sequence number of the change's first event
	Version   int64  // the game's version after the move
	LastEvent int64  // the game's last event after the move (game_ended, if the move ended it)
	Time      time.Time
	HasOffer  bool
	DrawOffer engine.Side // valid when HasOffer: the mover's own offer, still pending
	Clock     *Clock      // a move's: the clocks after it (nil without a time control, or in an older record)
	Head      []byte      // a call other than a move: EncodeGame of the game after it
}

// Call names what a request id was used for: one side's ids on one game
// are one namespace for every call.
type Call string

const (
	CallMove        Call = ""
	CallResign      Call = "resign"
	CallOfferDraw   Call = "offer_draw"
	CallAcceptDraw  Call = "accept_draw"
	CallDeclineDraw Call = "decline_draw"
)

// CreateRecord remembers a game created under a client's request id, so a
// retried CreateGame returns the first response, tokens included, and
// creates nothing. It holds neither the id nor the tokens: Key is a digest
// of the id, and Sealed the tokens encrypted with a key derived from the
// id (requests.go), so the store alone cannot give them back.
type CreateRecord struct {
	Key      string // LookupKey of the request id: lowercase hex of a SHA-256
	GameID   string
	Settings string // SettingsDigest of the request's settings
	Game     []byte // EncodeGame of the game as created
	Sealed   []byte // the tokens, sealed (AES-256-GCM) under the id's key
}

// Store keeps games, their event logs and request ids. A database fits
// it: Update is one transaction that checks the version (compare and set),
// writes the game, appends the events and records the request id.
type Store interface {
	// Create stores a new game with its first events.
	Create(ctx context.Context, g *Game, events []Event) error
	// Get returns a copy of the game or ErrNotFound.
	Get(ctx context.Context, id string) (*Game, error)
	// List returns games in creation order after q.After, with their
	// moves when q.Moves.
	List(ctx context.Context, q ListQuery) ([]*Game, error)
	// Update stores g if the stored game's version is g.Version-1, appends
	// events (whose sequence numbers follow the stored game's LastEvent)
	// and, when req is not nil, records it. It returns ErrConflict if the
	// version moved on, ErrDuplicateRequest if req's id is already
	// recorded for the game, ErrNotFound for an unknown game.
	Update(ctx context.Context, g *Game, events []Event, req *RequestRecord) error
	// Events returns up to limit events with sequence numbers above after,
	// in order.
	Events(ctx context.Context, id string, after int64, limit int) ([]Event, error)
	// Request returns the record of a request id or ErrNotFound.
	Request(ctx context.Context, id, requestID string) (RequestRecord, error)
	// CreateRequested is Create that also records req in the same
	// transaction: ErrDuplicateRequest (and nothing stored) if req.Key is
	// already recorded.
	CreateRequested(ctx context.Context, g *Game, events []Event, req *CreateRecord) error
	// CreateRequest returns the record of a create's request key
	// (CreateRecord.Key) or ErrNotFound.
	CreateRequest(ctx context.Context, key string) (CreateRecord, error)
	// Count returns the number of games held.
	Count(ctx context.Context) (int, error)
	// Due returns up to limit ids of games going on whose clock deadline
	// (Game.Clock.Deadline) is at or before until, earliest first.
	Due(ctx context.Context, until time.Time, limit int) ([]string, error)
}

// Notifier is implemented by stores shared by several processes: Listen
// reports every event committed by any of them (game id and sequence)
// until ctx ends, and calls resync after any gap in which notifications
// may have been lost.
type Notifier interface {
	Listen(ctx context.Context, notify func(gameID string, seq int64), resync func())
}

// Pinger is implemented by stores that can be unreachable (a database):
// Ping fails while they are.
type Pinger interface {
	Ping(ctx context.Context) error
}

// StaleGetter is implemented by stores that keep recently used games in
// memory (a replica's copies of a shared database's games). GetStale
// returns a copy of the game that the caller may change; cached reports
// that it came from memory and may be older than the stored game (a
// version another replica has since replaced), and is false when it was
// read from the store as Get reads it. Only a change checked by Update's
// version may rest on a cached copy: Update refuses a stale one with
// ErrConflict, and an answer decided on one must be confirmed on a Get.
type StaleGetter interface {
	GetStale(ctx context.Context, id string) (g *Game, cached bool, err error)
}

// Wrap returns w, a store that wraps s (to time or trace its calls), with
// s's optional abilities (Notifier, Pinger, StaleGetter) and no others.
func Wrap(s, w Store) Store {
	n, notifies := s.(Notifier)
	p, pings := s.(Pinger)
	c, caches := s.(StaleGetter)
	switch {
	case notifies && pings && caches:
		return struct {
			Store
			Notifier
			Pinger
			StaleGetter
		}{w, n, p, c}
	case notifies && pings:
		return struct {
			Store
			Notifier
			Pinger
		}{w, n, p}
	case notifies && caches:
		return struct {
			Store
			Notifier
			StaleGetter
		}{w, n, c}
	case pings && caches:
		return struct {
			Store
			Pinger
			StaleGetter
		}{w, p, c}
	case notifies:
		return struct {
			Store
			Notifier
		}{w, n}
	case pings:
		return struct {
			Store
			Pinger
		}{w, p}
	case caches:
		return struct {
			Store
			StaleGetter
		}{w, c}
	}
	return w
}
