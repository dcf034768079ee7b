package games

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/damone-rules/damone/internal/engine"
)

// Limits bound what the service holds; zero means no limit.
type Limits struct {
	MaxGames           int // games held in the store
	MaxWatchers        int // open watch streams in total
	MaxWatchersPerGame int // open watch streams per game
	WatchBuffer        int // events buffered per watcher before it is cut off
	MaxPlies           int // moves in one game: a move beyond is refused (limit game_plies)
}

// DefaultLimits are the limits a server starts with.
var DefaultLimits = Limits{MaxGames: 100_000, MaxWatchers: 10_000, MaxWatchersPerGame: 1_000, WatchBuffer: 256}

// Observer receives the service's counts for metrics; every method must
// be cheap and safe for concurrent use.
type Observer interface {
	MovePlayed()
	MoveRejected(reason string)
	WatchersChanged(delta int)
	// MoveChecked records the engine's work on one move given to a game,
	// played or refused: the replay of the game and the move.
	MoveChecked(d time.Duration)
}

type nopObserver struct{}

func (nopObserver) MovePlayed()               {}
func (nopObserver) MoveRejected(string)       {}
func (nopObserver) WatchersChanged(int)       {}
func (nopObserver) MoveChecked(time.Duration) {}

// Service runs stateful games on a Store. It is safe for concurrent use.
type Service struct {
	store    Store
	hub      *hub
	limits   Limits
	now      func() time.Time
	observer Observer
	draining chan struct{}
	log      *slog.Logger

	engine        EngineMover
	maxEngineTime time.Duration
	engineQ       *engineQueue    // engine moves searching and waiting (engineplay.go)
	base          context.Context // ends at Drain: stops the engine thinking
	stopBase      context.CancelFunc
	mu            sync.Mutex
	thinking      map[string]bool // engine moves queued or being chosen, by game and ply
	moves         *moveCache      // known moves of recent games (movecache.go)
	createMu      sync.Mutex      // guards creating
	creating      int             // creates past the max-games check, not yet finished
}

// Option configures a Service.
type Option func(*Service)

// WithClock sets the clock (for tests).
func WithClock(now func() time.Time) Option { return func(s *Service) { s.now = now } }

// WithLogger sets where the service logs what no caller sees (an engine
// move that failed in the background).
func WithLogger(l *slog.Logger) Option { return func(s *Service) { s.log = l } }

// WithObserver sets the receiver of the service's counts.
func WithObserver(o Observer) Option { return func(s *Service) { s.observer = o } }

// NewService returns a service on store with the given limits.
func NewService(store Store, limits Limits, opts ...Option) *Service {
	if limits.WatchBuffer <= 0 {
		limits.WatchBuffer = DefaultLimits.WatchBuffer
	}
	s := &Service{
		store:    store,
		hub:      newHub(limits.WatchBuffer, limits.MaxWatchersPerGame, limits.MaxWatchers),
		limits:   limits,
		now:      func() time.Time { return time.Now().UTC() },
		observer: nopObserver{},
		draining: make(chan struct{}),
		log:      slog.New(slog.DiscardHandler),
		thinking: map[string]bool{},
		moves:    newMoveCache(),
	}
	s.base, s.stopBase = context.WithCancel(context.Background())
	for _, o := range opts {
		o(s)
	}
	return s
}

// Run feeds the watchers of this process with the events other processes
// commit to a shared store (a Notifier), until ctx ends. Without such a
// store it returns at once.
func (s *Service) Run(ctx context.Context) {
	if s.engine != nil {
		go s.sweepEngineGames(ctx, true) // engine moves lost in a restart
	}
	n, shared := s.store.(Notifier)
	if !shared {
		return
	}
	if s.engine != nil {
		go func() {
			t := time.NewTicker(engineSweepEvery)
			defer t.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
					s.sweepEngineGames(ctx, false) // ... or with another replica
				}
			}
		}()
	}
	n.Listen(ctx, s.hub.poke, s.hub.pokeAll)
}

// Drain ends every open and future watch stream with CodeUnavailable, so
// watchers reconnect (elsewhere) and resume; call it when shutting down.
func (s *Service) Drain() {
	select {
	case <-s.draining:
	default:
		close(s.draining)
		s.stopBase()
	}
}

// Watchers returns the number of open watch streams.
func (s *Service) Watchers() int { return s.hub.watchers() }

// Tokens are the secret side tokens of a new game, returned only once.
type Tokens struct{ Red, Black string }

// Create starts a game of variant v. The variant's errors (an unknown
// setting, capture-all-Damones without both Damones) are CodeInvalidArgument
// on field "variant"; a full store is CodeResourceExhausted.
func (s *Service) Create(ctx context.Context, v engine.Variant) (*Game, Tokens, error) {
	return s.create(ctx, v, nil)
}

func (s *Service) create(ctx context.Context, v engine.Variant, opp *EngineOpponent) (*Game, Tokens, error) {
	eg, err := engine.NewGame(v)
	if err != nil {
		return nil, Tokens{}, invalid("game.variant", "invalid variant: %v", err)
	}
	if s.limits.MaxGames > 0 {
		done, err := s.reserveCreate(ctx)
		if err != nil {
			return nil, Tokens{}, err
		}
		defer done()
	}
	id, err := uuid.NewV7()
	if err != nil {
		return nil, Tokens{}, err
	}
	red, black := newToken(), newToken()
	now := s.now()
	g := &Game{
		ID:         id.String(),
		Variant:    eg.Variant(),
		Initial:    eg.InitialPosition(),
		Position:   eg.Position(),
		Outcome:    eg.Outcome(),
		Version:    1,
		CreateTime: now,
		UpdateTime: now,
		TokenHash:  [2][32]byte{sha256.Sum256([]byte(red)), sha256.Sum256([]byte(black))},
		Engine:     opp,
	}
	events := []Event{{Kind: EventCreated, Variant: g.Variant}}
	s.stamp(g, events)
	if err := s.store.Create(ctx, g, events); err != nil {
		return nil, Tokens{}, storeError(err)
	}
	return g, Tokens{Red: red, Black: black}, nil
}

// reserveCreate passes the max-games check for one create, counting the
// creates under way with the stored games, so concurrent creates cannot
// both pass it (within this process; replicas sharing a store may
// overshoot by at most one game each) and yet do not wait for each
// other's writes: their writes can share a commit. done ends the
// reservation once the create is stored or failed.
func (s *Service) reserveCreate(ctx context.Context) (done func(), err error) {
	s.createMu.Lock()
	defer s.createMu.Unlock()
	n, err := s.store.Count(ctx)
	if err != nil {
		return nil, storeError(err)
	}
	if n+s.creating >= s.limits.MaxGames {
		return nil, &Error{Code: CodeResourceExhausted, Reason: ReasonLimitExceeded, Limit: "games",
			Message:  fmt.Sprintf("the server holds its maximum of %d games (limit games)", s.limits.MaxGames),
			Metadata: map[string]string{"limit": "games", "maximum": strconv.Itoa(s.limits.MaxGames)}}
	}
	s.creating++
	return func() {
		s.createMu.Lock()
		s.creating--
		s.createMu.Unlock()
	}, nil
}

func newToken() string {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand panics instead)
	return base64.RawURLEncoding.EncodeToString(b)
}

// stamp numbers events after g.LastEvent and fills in their common fields.
func (s *Service) stamp(g *Game, events []Event) {
	for i := range events {
		g.LastEvent++
		events[i].GameID = g.ID
		events[i].Sequence = g.LastEvent
		events[i].Time = g.UpdateTime
		events[i].Ply = g.Ply()
		events[i].Position = g.Position
		events[i].rendered = new(renderCache)
	}
}

// Get returns a game without its moves, or CodeNotFound; WithMoves adds
// them.
func (s *Service) Get(ctx context.Context, id string) (*Game, error) {
	g, err := s.store.Get(ctx, id)
	if err != nil {
		return nil, storeError(err)
	}
	return g, nil
}

// movesPage is how many events WithMoves reads at a time.
const movesPage = 1000

// WithMoves fills in g.Moves, every move played up to g.Ply(), from the
// game's event log (a store keeps moves only there). The log only grows,
// so the moves match g even if the game moved on since it was read.
func (s *Service) WithMoves(ctx context.Context, g *Game) error {
	if g.HasMoves() {
		return nil
	}
	known := s.moves.get(g.ID)
	if len(known.moves) >= g.Ply() {
		g.Moves = known.moves[:g.Ply():g.Ply()]
		return nil
	}
	moves, seq := known.moves, known.seq
	for len(moves) < g.Ply() {
		events, err := s.store.Events(ctx, g.ID, seq, movesPage)
		if err != nil {
			return storeError(err)
		}
		if len(events) == 0 {
			return fmt.Errorf("game %s: its event log has %d of its %d moves", g.ID, len(moves), g.Ply())
		}
		for i := range events {
			e := &events[i]
			if e.Kind != EventMovePlayed {
				continue
			}
			if e.Ply != len(moves)+1 {
				return fmt.Errorf("game %s: event %d is ply %d, after %d moves", g.ID, e.Sequence, e.Ply, len(moves))
			}
			moves, seq = append(moves, e.Move), e.Sequence
			if len(moves) == g.Ply() {
				break
			}
		}
		if len(moves) < g.Ply() {
			seq = events[len(events)-1].Sequence
		}
	}
	s.moves.put(g.ID, knownMoves{moves: moves, seq: seq})
	g.Moves = moves[:g.Ply():g.Ply()]
	return nil
}

// List returns up to limit games after the game with id after (creation
// order), and whether more may follow.
func (s *Service) List(ctx context.Context, q ListQuery) ([]*Game, bool, error) {
	want := q.Limit
	q.Limit++ // one more tells whether there is a next page
	gs, err := s.store.List(ctx, q)
	if err != nil {
		return nil, false, storeError(err)
	}
	if len(gs) > want {
		return gs[:want], true, nil
	}
	return gs, false, nil
}

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
// id too long, not UTF-8 or reused for another move), CodeNotFound,
// CodeAborted (the etag or ply no longer holds, or a concurrent move won),
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
	for attempt := 1; ; attempt++ {
		g, err := s.store.Get(ctx, r.GameID)
		if err != nil {
			return nil, storeError(err)
		}
		// The token alone decides the side: whose piece the move names is
		// for the rules to judge (ILLEGAL_MOVE or NOT_YOUR_TURN), after the
		// replay and the preconditions, never PERMISSION_DENIED.
		side, err := authorize(g, r.Token)
		if err != nil {
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
				return res, err
			}
		}
		if err := checkExpectations(g, r); err != nil {
			return nil, err
		}
		res, events, err := s.play(g, side, r.Move)
		if err != nil {
			return nil, err
		}
		var req *RequestRecord
		if r.RequestID != "" {
			// The state after the move, so a retry answers as this call does.
			req = &RequestRecord{RequestID: reqID, Move: r.Move, Ply: g.Ply(), Sequence: res.Sequence,
				Version: g.Version, LastEvent: g.LastEvent, Time: g.UpdateTime, HasOffer: g.HasOffer, DrawOffer: g.DrawOffer}
		}
		// A move that makes the engine move needs a place in its queue.
		engineDone, err := s.reserveEngineMove(g)
		if err != nil {
			return nil, err
		}
		err = s.store.Update(ctx, g, events, req)
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
		case errors.Is(err, ErrConflict):
			if r.ExpectedEtag != "" || r.ExpectedPly != nil || attempt >= maxAttempts {
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
	if rec.Move != r.Move {
		return nil, invalid("request_id", "request_id %s was already used on this game for the move %s, not %s",
			engine.Quote(r.RequestID), engine.Quote(rec.Move), engine.Quote(r.Move))
	}
	// The record can be newer than the game read before it: read again.
	if rec.Ply > g.Ply() {
		if g, err = s.store.Get(ctx, g.ID); err != nil {
			return nil, storeError(err)
		}
		if rec.Ply > g.Ply() {
			return nil, fmt.Errorf("request %s records ply %d but game %s is at ply %d", engine.Quote(reqID), rec.Ply, g.ID, g.Ply())
		}
	}
	if err := s.WithMoves(ctx, g); err != nil {
		return nil, err
	}
	// A record written before records kept the state after the move
	// (Version 0) answers with the game as it is now.
	first := g
	if rec.Version > 0 {
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
	g.Version++
	g.UpdateTime = s.now()
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
	moved := []Event{{Kind: EventMovePlayed, Move: played}}
	if g.Over() {
		g.HasOffer = false
		moved = append(moved, Event{Kind: EventEnded, Outcome: g.Outcome})
	}
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
	outcomeResultNames = [...]string{"OUTCOME_RESULT_UNSPECIFIED", "OUTCOME_RESULT_RED_WINS", "OUTCOME_RESULT_BLACK_WINS", "OUTCOME_RESULT_DRAW"}
	outcomeReasonNames = [...]string{"OUTCOME_REASON_UNSPECIFIED", "OUTCOME_REASON_ALL_PIECES_CAPTURED", "OUTCOME_REASON_STALEMATE",
		"OUTCOME_REASON_ALL_DAMONES_CAPTURED", "OUTCOME_REASON_REPETITION", "OUTCOME_REASON_NO_PROGRESS",
		"OUTCOME_REASON_RESIGNATION", "OUTCOME_REASON_AGREED_DRAW"}
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

// Resign ends the game with a win for the opponent of the token's side.
func (s *Service) Resign(ctx context.Context, id, token string) (*Game, error) {
	return s.change(ctx, id, token, func(g *Game, side engine.Side) ([]Event, error) {
		g.Outcome = engine.Outcome{Result: engine.WinFor(side ^ 1), Reason: engine.Resignation}
		g.HasOffer = false
		return []Event{{Kind: EventEnded, Outcome: g.Outcome}}, nil
	})
}

// OfferDraw records a draw offer by the token's side; the opponent answers
// it with AnswerDrawOffer or declines it by moving.
func (s *Service) OfferDraw(ctx context.Context, id, token string) (*Game, error) {
	return s.change(ctx, id, token, func(g *Game, side engine.Side) ([]Event, error) {
		if g.HasOffer {
			e := precondition(ReasonDrawAlreadyOffered, "%s has offered a draw: answer it with AnswerDrawOffer", g.DrawOffer)
			if g.DrawOffer == side {
				e.Message = fmt.Sprintf("%s has already offered a draw", side)
			}
			e.Metadata = map[string]string{"draw_offer": sideName(g.DrawOffer)}
			return nil, e
		}
		g.HasOffer, g.DrawOffer = true, side
		events := []Event{{Kind: EventDrawOffered, Side: side}}
		if g.Engine != nil && g.Engine.Side != side && s.atLengthLimit(g) {
			// The engine cannot move any more, so it takes the draw: the
			// game would otherwise go on only until its player resigned.
			g.HasOffer = false
			g.Outcome = engine.Outcome{Result: engine.Draw, Reason: engine.AgreedDraw}
			events = append(events, Event{Kind: EventEnded, Outcome: g.Outcome})
		}
		return events, nil
	})
}

// atLengthLimit reports whether g has as many moves as a game may have
// (Limits.MaxPlies).
func (s *Service) atLengthLimit(g *Game) bool {
	return s.limits.MaxPlies > 0 && g.Ply() >= s.limits.MaxPlies
}

// engineToMove reports whether the engine is to move in g and may: not in
// a game at its length limit.
func (s *Service) engineToMove(g *Game) bool {
	return g.EngineToMove() && !s.atLengthLimit(g)
}

// AnswerDrawOffer accepts (ending the game as an agreed draw) or declines
// the opponent's pending offer.
func (s *Service) AnswerDrawOffer(ctx context.Context, id, token string, accept bool) (*Game, error) {
	return s.change(ctx, id, token, func(g *Game, side engine.Side) ([]Event, error) {
		if !g.HasOffer || g.DrawOffer == side {
			e := precondition(ReasonNoDrawOffer, "%s has no draw offer to answer", side)
			e.Metadata = map[string]string{"side": sideName(side)}
			return nil, e
		}
		g.HasOffer = false
		if !accept {
			return []Event{{Kind: EventDrawDeclined, Side: side}}, nil
		}
		g.Outcome = engine.Outcome{Result: engine.Draw, Reason: engine.AgreedDraw}
		return []Event{{Kind: EventEnded, Outcome: g.Outcome}}, nil
	})
}

// change applies a token-authorized change that is not a move, retrying
// when it loses a race (it is checked again on the new state).
func (s *Service) change(ctx context.Context, id, token string, fn func(*Game, engine.Side) ([]Event, error)) (*Game, error) {
	if token == "" {
		return nil, errMissingToken
	}
	for attempt := 1; ; attempt++ {
		g, err := s.store.Get(ctx, id)
		if err != nil {
			return nil, storeError(err)
		}
		side, err := authorize(g, token)
		if err != nil {
			return nil, err
		}
		if g.Over() {
			return nil, gameOver(g)
		}
		events, err := fn(g, side)
		if err != nil {
			return nil, err
		}
		g.Version++
		g.UpdateTime = s.now()
		s.stamp(g, events)
		err = s.store.Update(ctx, g, events, nil)
		switch {
		case err == nil:
			s.hub.publish(g.ID, events)
			return g, nil
		case errors.Is(err, ErrConflict) && attempt < maxAttempts:
			continue
		case errors.Is(err, ErrConflict):
			return nil, &Error{Code: CodeAborted, Reason: ReasonPlyMismatch, Message: "the game kept changing; retry"}
		default:
			return nil, storeError(err)
		}
	}
}

// watchPage is how many stored events one catch-up read fetches.
const watchPage = 256

// sharedStorePoll is how often a watcher on a shared store reads the log
// even without a notification.
const sharedStorePoll = 2 * time.Second

// Watch sends the game's events with sequence numbers above since, in
// order, then live events, and returns nil after sending the game-ended
// event. Errors: CodeNotFound; CodeInvalidArgument for a negative since;
// CodeOutOfRange when since is past the last event; CodeResourceExhausted
// when a watcher limit is reached or this watcher fell too far behind
// (resume from the last sequence received); CodeUnavailable when the
// service drains; the context's error when the caller goes away; any
// error send returns.
func (s *Service) Watch(ctx context.Context, id string, since int64, send func(*Event) error) error {
	if since < 0 {
		return invalid("since_sequence", "since_sequence must be 0 or more, got %d", since)
	}
	g, err := s.store.Get(ctx, id)
	if err != nil {
		return storeError(err)
	}
	if since > g.LastEvent {
		return &Error{Code: CodeOutOfRange, Reason: ReasonSequenceOutOfRange,
			Message:  fmt.Sprintf("since_sequence %d is past the game's last event %d", since, g.LastEvent),
			Metadata: map[string]string{"last_event_sequence": strconv.FormatInt(g.LastEvent, 10)}}
	}
	// Subscribe before reading the log, so nothing falls between the two.
	sub, lerr := s.hub.subscribe(id)
	if lerr != nil {
		return lerr
	}
	s.observer.WatchersChanged(1)
	defer func() {
		s.hub.unsubscribe(sub)
		s.observer.WatchersChanged(-1)
	}()
	last := since
	deliver := func(e *Event) (bool, error) {
		if err := send(e); err != nil {
			return false, err
		}
		last = e.Sequence
		return e.Final(), nil
	}
	catchUp := func() (bool, error) {
		for {
			evs, err := s.store.Events(ctx, id, last, watchPage)
			if err != nil {
				return false, storeError(err)
			}
			for i := range evs {
				if done, err := deliver(&evs[i]); done || err != nil {
					return done, err
				}
			}
			if len(evs) < watchPage {
				return false, nil
			}
		}
	}
	if done, err := catchUp(); done || err != nil {
		return err
	}
	if g.Over() && last >= g.LastEvent {
		return nil // the game-ended event was at or before since: nothing will follow
	}
	// With a shared store, also read the log now and then: a notification
	// lost on the way costs a short delay, never an event.
	var poll <-chan time.Time
	if _, shared := s.store.(Notifier); shared {
		t := time.NewTicker(sharedStorePoll)
		defer t.Stop()
		poll = t.C
	}
	for {
		select {
		case <-poll:
			if done, err := catchUp(); done || err != nil {
				return err
			}
		case <-ctx.Done():
			return ctx.Err()
		case <-s.draining:
			return &Error{Code: CodeUnavailable, Message: fmt.Sprintf(
				"the server is shutting down; watch again with since_sequence=%d", last)}
		case <-sub.cut:
			return &Error{Code: CodeResourceExhausted, Reason: ReasonLimitExceeded, Limit: "watch_buffer",
				Metadata: map[string]string{"limit": "watch_buffer", "maximum": strconv.Itoa(s.limits.WatchBuffer)},
				Message: fmt.Sprintf("this watcher fell more than %d events behind and was cut off; watch again with since_sequence=%d",
					s.limits.WatchBuffer, last)}
		case e := <-sub.events:
			var done bool
			var err error
			switch {
			case e.Kind == 0: // a poke from another process: read the log
				done, err = catchUp()
			case e.Sequence <= last: // already sent while catching up
				continue
			case e.Sequence == last+1:
				done, err = deliver(e)
			default: // a gap: read what is missing from the log
				done, err = catchUp()
			}
			if done || err != nil {
				return err
			}
		}
	}
}

// storeError turns a store error into the service's error.
func storeError(err error) error {
	switch {
	case errors.Is(err, ErrNotFound):
		return &Error{Code: CodeNotFound, Reason: ReasonGameNotFound, Message: "no such game", Err: err}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	}
	return &Error{Code: CodeUnavailable, Message: "the game store failed: " + err.Error(), Err: err}
}
