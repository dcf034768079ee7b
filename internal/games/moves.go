package games

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/damone-rules/damone/internal/engine"
)

// MoveRequest is a move for a game.
type MoveRequest struct {
	GameID       string
	Token        string // the bearer token of the moving side
	Move         string // notation (RULES.md, Notation)
	ExpectedEtag string // if set, the move is played only on this etag
	ExpectedPly  *int   // if set, the move is played only at this ply
	RequestID    string // if set, a retry returns the first result (at most MaxRequestIDBytes of UTF-8)
}

// MaxRequestIDBytes bounds a request id (game_service.proto,
// MakeMoveRequest.request_id): bytes, not characters, so the bound is the
// same in every client language and for every store's key.
const MaxRequestIDBytes = 64

// MoveResult is what a played move returns.
type MoveResult struct {
	Move     PlayedMove
	Game     *Game
	Sequence int64 // the sequence number of the move's event
}

// maxAttempts bounds the retries of a move that lost a race it did not ask
// to lose (no expected etag or ply): the move is checked again on the new
// state, so it can never apply to a position it was not checked on.
const maxAttempts = 8

// MakeMove plays a move (see MoveRequest). A retry with a request id the
// same side already used for the same move returns the first result again
// (the game as that move left it), and plays nothing. Errors, each an
// *Error: CodeUnauthenticated (no token), CodePermissionDenied (not one of
// the game's tokens), CodeInvalidArgument (malformed notation, a request
// id too long, not UTF-8 or reused for another move or call), CodeNotFound,
// CodeAborted (the etag or ply no longer holds, or the game kept changing
// through every retry),
// CodeFailedPrecondition (game over, not your turn, illegal or ambiguous
// move; Legal lists the legal moves), CodeResourceExhausted (limit
// engine_queue: the move would have the engine reply while its queue is
// full; nothing is played).
func (s *Service) MakeMove(ctx context.Context, r MoveRequest) (*MoveResult, error) {
	res, err := s.makeMove(ctx, r)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			s.observer.MoveRejected(e.Reason)
		}
		return nil, err
	}
	return res, nil
}

// The checks run in the contract's order (docs/api.md): malformed input,
// missing token, unknown game, a token that is neither side's, a replayed
// request id, a stale etag or ply, then the rules (game over, not your
// turn, the move).
func (s *Service) makeMove(ctx context.Context, r MoveRequest) (*MoveResult, error) {
	if _, _, err := engine.ParseMoveSquares(r.Move); err != nil {
		return nil, invalid("move", "%v", err)
	}
	if err := checkRequestID(r.RequestID); err != nil {
		return nil, err
	}
	if r.Token == "" {
		return nil, errMissingToken
	}
	// A store's cached copy (StaleGetter) saves the read, and may be
	// stale: a move played on it is refused by Update's version check
	// (then the game is read again), and any other answer it would give
	// is confirmed on a fresh read first (confirm), so a client gets only
	// answers a fresh read gives.
	stale, _ := s.store.(StaleGetter)
	fresh := stale == nil
	for attempt := 1; ; attempt++ {
		var (
			g      *Game
			cached bool
			err    error
		)
		if fresh {
			g, err = s.store.Get(ctx, r.GameID)
		} else {
			g, cached, err = stale.GetStale(ctx, r.GameID)
		}
		if err != nil {
			return nil, storeError(err)
		}
		// confirm reports whether this round's answer came from a cached
		// copy: the next round reads the game fresh and decides again.
		confirm := func() bool {
			if cached {
				fresh = true
				attempt--
				return true
			}
			return false
		}
		// The token alone decides the side: whose piece the move names is
		// for the rules to judge (ILLEGAL_MOVE or NOT_YOUR_TURN), after the
		// replay and the preconditions, never PERMISSION_DENIED.
		side, err := authorize(g, r.Token)
		if err != nil {
			if confirm() {
				continue
			}
			return nil, err
		}
		// Request ids are the client's, so each side has its own: a side
		// never replays, or collides with, the other side's requests. The
		// replay answers before any check on the game's current state: a
		// retry must get the first response whatever happened since.
		reqID := ""
		if r.RequestID != "" {
			reqID = side.String() + "/" + r.RequestID
			if res, err := s.replayRequest(ctx, g, r, reqID); res != nil || err != nil {
				if confirm() {
					continue
				}
				return res, err
			}
		}
		// Past its deadline the game is over, whether or not a timer has
		// ended it yet (here, or while play checks the move): end it now,
		// and the next round refuses the move with its outcome.
		var (
			res    *MoveResult
			events []Event
		)
		if _, due := clockOutcome(g, s.now()); due {
			err = errClockDue
		} else if err = checkExpectations(g, r); err == nil || planted("skip-precondition") {
			res, events, err = s.play(g, side, r.Move)
		}
		if err != nil && confirm() {
			continue
		}
		if errors.Is(err, errClockDue) {
			if err := s.expire(ctx, g.ID); err != nil {
				return nil, storeError(err)
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		var req *RequestRecord
		if r.RequestID != "" {
			// The state after the move, so a retry answers as this call does.
			req = &RequestRecord{RequestID: reqID, Move: r.Move, Ply: g.Ply(), Sequence: res.Sequence,
				Version: g.Version, LastEvent: g.LastEvent, Time: g.UpdateTime, HasOffer: g.HasOffer, DrawOffer: g.DrawOffer,
				Clock: g.Clock.clone()}
		}
		// A move that makes the engine move needs a place in its queue.
		engineDone, err := s.reserveEngineMove(g)
		if err != nil {
			if confirm() {
				continue
			}
			return nil, err
		}
		if planted("ack-before-commit") {
			go func() {
				time.Sleep(300 * time.Millisecond)
				s.store.Update(context.Background(), g, events, req)
			}()
		} else {
			err = s.store.Update(ctx, g, events, req)
		}
		engineDone(err == nil)
		switch {
		case err == nil:
			s.hub.publish(g.ID, events)
			s.moves.played(g.ID, g.Ply(), res.Move, res.Sequence)
			s.observer.MovePlayed()
			s.afterChange(g)
			return res, nil
		case errors.Is(err, ErrDuplicateRequest):
			continue // a retry of ours landed first: answer as it did
		case errors.Is(err, ErrConflict) && confirm():
			continue // the cached copy was stale (the store dropped it)
		case errors.Is(err, ErrConflict):
			// Any change moves the etag, so an etag precondition is lost;
			// an expected ply is checked again on the new state, since a
			// change that is not a move (a draw offer) leaves it holding.
			if r.ExpectedEtag != "" || attempt >= maxAttempts {
				return nil, s.lostRace(ctx, r)
			}
			continue
		default:
			return nil, storeError(err)
		}
	}
}

var errMissingToken = &Error{Code: CodeUnauthenticated, Reason: ReasonMissingToken,
	Message: "this call needs the side's token as 'authorization: Bearer <token>'"}

// lostRace is the error of a move whose precondition held when checked but
// not at commit, because another change landed in between: ABORTED with
// the reason of the precondition given and the game's state now.
func (s *Service) lostRace(ctx context.Context, r MoveRequest) error {
	e := &Error{Code: CodeAborted, Reason: ReasonPlyMismatch,
		Message: "another change to the game was made at the same time; read the game again and retry"}
	if r.ExpectedEtag != "" {
		e.Reason = ReasonEtagMismatch
	}
	if g, err := s.store.Get(ctx, r.GameID); err == nil {
		e.Metadata = map[string]string{"etag": g.Etag(), "ply": strconv.Itoa(g.Ply())}
	}
	return e
}

// authorize returns the side whose token is given.
func authorize(g *Game, token string) (engine.Side, error) {
	if token == "" {
		return 0, errMissingToken
	}
	h := sha256.Sum256([]byte(token))
	red := subtle.ConstantTimeCompare(h[:], g.TokenHash[engine.Red][:])
	black := subtle.ConstantTimeCompare(h[:], g.TokenHash[engine.Black][:])
	switch {
	case red == 1:
		return engine.Red, nil
	case black == 1:
		return engine.Black, nil
	}
	return 0, &Error{Code: CodePermissionDenied, Reason: ReasonWrongToken,
		Message: "the bearer token is not one of this game's side tokens"}
}

// checkRequestID refuses a request id the contract does not allow.
func checkRequestID(id string) error {
	if len(id) > MaxRequestIDBytes {
		return invalid("request_id", "request_id is %d bytes long; it may be at most %d bytes of UTF-8", len(id), MaxRequestIDBytes)
	}
	if !utf8.ValidString(id) {
		return invalid("request_id", "request_id is not valid UTF-8")
	}
	// PostgreSQL's text cannot hold U+0000, so one store would refuse what
	// another keeps: every store refuses it here, alike.
	if i := strings.IndexByte(id, 0); i >= 0 {
		return invalid("request_id", "request_id holds U+0000 (NUL) at byte %d; it may not", i)
	}
	return nil
}

// replayRequest answers a retried request id with the first result.
func (s *Service) replayRequest(ctx context.Context, g *Game, r MoveRequest, reqID string) (*MoveResult, error) {
	rec, err := s.store.Request(ctx, g.ID, reqID)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, storeError(err)
	}
	if rec.Call != CallMove {
		return nil, errRequestReused(rec.Call)
	}
	if rec.Move != r.Move {
		// Never the id itself: messages reach logs and traces, and an id
		// is the client's (docs/deploy.md, Secrets).
		return nil, invalid("request_id", "this side already used this request_id on this game for the move %s, not %s; use a new request_id for a new move",
			engine.Quote(rec.Move), engine.Quote(r.Move))
	}
	// The record can be newer than the game read before it: read again.
	if rec.Ply > g.Ply() {
		if g, err = s.store.Get(ctx, g.ID); err != nil {
			return nil, storeError(err)
		}
		if rec.Ply > g.Ply() {
			return nil, fmt.Errorf("a request record of game %s has ply %d but the game is at ply %d", g.ID, rec.Ply, g.Ply())
		}
	}
	if err := s.WithMoves(ctx, g); err != nil {
		return nil, err
	}
	// A record written before records kept the state after the move
	// (Version 0) answers with the game as it is now.
	first := g
	if rec.Version > 0 && !planted("replay-current-state") {
		if first, err = g.asOf(rec); err != nil {
			return nil, err
		}
	}
	move := first.Moves[rec.Ply-1]
	first.Moves = nil // as the first response had it: WithMoves adds them
	return &MoveResult{Move: move, Game: first, Sequence: rec.Sequence}, nil
}

func checkExpectations(g *Game, r MoveRequest) error {
	if r.ExpectedEtag != "" && r.ExpectedEtag != g.Etag() {
		return &Error{Code: CodeAborted, Reason: ReasonEtagMismatch,
			Message:  fmt.Sprintf("etag %s is stale: the game is now at etag %s (ply %d); read it again", r.ExpectedEtag, g.Etag(), g.Ply()),
			Metadata: map[string]string{"etag": g.Etag(), "ply": strconv.Itoa(g.Ply())}}
	}
	if r.ExpectedPly != nil && *r.ExpectedPly != g.Ply() {
		return &Error{Code: CodeAborted, Reason: ReasonPlyMismatch,
			Message:  fmt.Sprintf("expected ply %d, but the game is at ply %d; read it again", *r.ExpectedPly, g.Ply()),
			Metadata: map[string]string{"etag": g.Etag(), "ply": strconv.Itoa(g.Ply())}}
	}
	return nil
}

// play checks and applies a move to g (a copy), returning the result and
// the events to store.
func (s *Service) play(g *Game, side engine.Side, text string) (*MoveResult, []Event, error) {
	pos := g.Position
	if g.Over() {
		return nil, nil, gameOver(g)
	}
	if side != pos.SideToMove() {
		e := precondition(ReasonNotYourTurn, "it is %s's turn, not %s's", pos.SideToMove(), side)
		e.Metadata = map[string]string{"side": sideName(side), "side_to_move": sideName(pos.SideToMove())}
		return nil, nil, e
	}
	if s.atLengthLimit(g) {
		return nil, nil, &Error{Code: CodeResourceExhausted, Reason: ReasonLimitExceeded, Limit: "game_plies",
			Message: fmt.Sprintf("the game has reached the server's maximum of %d plies (setting max-game-plies); it can still end by resignation or an agreed draw",
				s.limits.MaxPlies),
			Metadata: map[string]string{"limit": "game_plies", "maximum": strconv.Itoa(s.limits.MaxPlies)}}
	}
	t0 := time.Now()
	eg, err := g.continued()
	if err != nil {
		return nil, nil, err
	}
	m, err := eg.PlayText(text)
	s.observer.MoveChecked(time.Since(t0))
	if err != nil {
		var me *engine.MoveError
		if errors.As(err, &me) {
			if me.Code == engine.MoveMalformed {
				return nil, nil, invalid("move", "%v", me)
			}
			e := precondition(ReasonIllegalMove, "%s", me.Error())
			e.Err = me
			if me.Code == engine.MoveAmbiguous {
				e.Reason = ReasonAmbiguousMove
				e.Legal = notations(me.Candidates)
			} else {
				e.Legal = notations(pos.LegalMoves())
			}
			return nil, nil, e
		}
		return nil, nil, err
	}
	// The move's time: its clock is judged, and it is stamped, at one
	// instant.
	now := s.now()
	if _, due := clockOutcome(g, now); due {
		return nil, nil, errClockDue
	}
	g.Version++
	g.UpdateTime = now
	advanceClock(g, now)
	var events []Event
	if g.HasOffer && g.DrawOffer != side {
		// Playing on declines the opponent's offer just before the move,
		// so the event is stamped with the ply and position before it
		// (game.proto, GameEvent).
		g.HasOffer = false
		events = append(events, Event{Kind: EventDrawDeclined, Side: side, ByMove: true})
		s.stamp(g, events)
	}
	played := PlayedMove{Move: m, Side: side, Captured: pos.CapturedPieces(&m)}
	if g.HasMoves() {
		g.Moves = append(g.Moves, played)
	}
	g.Plies++
	g.Position, g.Outcome, g.Recent = eg.Position(), eg.Outcome(), eg.Recent()
	clockMoved(g, side)
	moved := []Event{{Kind: EventMovePlayed, Move: played}}
	if g.Over() {
		g.HasOffer = false
		moved = append(moved, Event{Kind: EventEnded, Outcome: g.Outcome})
	}
	settleClock(g, true, s.atLengthLimit(g))
	s.stamp(g, moved)
	events = append(events, moved...)
	return &MoveResult{Move: played, Game: g, Sequence: moved[0].Sequence}, events, nil
}

// gameOver is the error for a change to a finished game.
func gameOver(g *Game) *Error {
	e := precondition(ReasonGameOver, "the game is over: %s", g.Outcome)
	e.Metadata = map[string]string{"result": outcomeResultNames[g.Outcome.Result], "reason": outcomeReasonNames[g.Outcome.Reason]}
	return e
}

// The API's enum value names, used in error metadata.
var (
	outcomeResultNames = [...]string{"OUTCOME_RESULT_UNSPECIFIED", "OUTCOME_RESULT_RED_WINS", "OUTCOME_RESULT_BLACK_WINS", "OUTCOME_RESULT_DRAW",
		"OUTCOME_RESULT_NO_RESULT"}
	outcomeReasonNames = [...]string{"OUTCOME_REASON_UNSPECIFIED", "OUTCOME_REASON_ALL_PIECES_CAPTURED", "OUTCOME_REASON_STALEMATE",
		"OUTCOME_REASON_ALL_DAMONES_CAPTURED", "OUTCOME_REASON_REPETITION", "OUTCOME_REASON_NO_PROGRESS",
		"OUTCOME_REASON_RESIGNATION", "OUTCOME_REASON_AGREED_DRAW", "OUTCOME_REASON_TIMEOUT", "OUTCOME_REASON_ABORTED"}
)

func sideName(s engine.Side) string {
	if s == engine.Red {
		return "SIDE_RED"
	}
	return "SIDE_BLACK"
}

func notations(ms []engine.Move) []string {
	out := make([]string, len(ms))
	for i := range ms {
		out[i] = ms[i].String()
	}
	return out
}
