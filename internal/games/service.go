package games

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

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
	// MinClockTime and MaxClockTime bound a time control's initial time
	// and per-move time (and MaxClockTime its increment); FirstMoveTime
	// is each side's time for its first move under a Fischer control.
	MinClockTime, MaxClockTime, FirstMoveTime time.Duration
}

// DefaultLimits are the limits a server starts with.
var DefaultLimits = Limits{MaxGames: 100_000, MaxWatchers: 10_000, MaxWatchersPerGame: 1_000, WatchBuffer: 256,
	MinClockTime: time.Second, MaxClockTime: 30 * 24 * time.Hour, FirstMoveTime: time.Minute}

// Observer receives the service's counts for metrics; every method must
// be cheap and safe for concurrent use.
type Observer interface {
	MovePlayed()
	MoveRejected(reason string)
	WatchersChanged(delta int)
	// MoveChecked records the engine's work on one move given to a game,
	// played or refused: the replay of the game and the move.
	MoveChecked(d time.Duration)
	// GameFlagged records a game ended by its clock, lag after its
	// deadline: reason "timeout" (a flag fell) or "aborted" (a first move
	// never came).
	GameFlagged(reason string, lag time.Duration)
}

type nopObserver struct{}

func (nopObserver) MovePlayed()                       {}
func (nopObserver) MoveRejected(string)               {}
func (nopObserver) WatchersChanged(int)               {}
func (nopObserver) MoveChecked(time.Duration)         {}
func (nopObserver) GameFlagged(string, time.Duration) {}

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

// Run does the service's background work until ctx ends: it ends games
// by their clocks (clock.go), restarts engine moves lost in a restart,
// and, on a store shared with other processes (a Notifier), feeds this
// process's watchers with the events the others commit. Without such a
// store it returns at once, leaving the clocks and the engine's sweep
// running.
func (s *Service) Run(ctx context.Context) {
	go s.runClocks(ctx, clockPoll, func(err error) { s.log.Warn("ending games by their clocks", "err", err) })
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
	r := &relay{s: s, ctx: ctx, read: map[string]int64{}}
	go r.poll(sharedStorePoll)
	n.Listen(ctx, r.notify, s.hub.pokeAll)
}

// relay feeds this process's watchers with the events other processes
// commit to a shared store. On a notification for a game with watchers
// here (committed by any replica, this one included), it reads the new
// events once and hands them to every watcher, instead of waking each
// watcher to read them itself (one store read per notification, not one
// per watcher). A read that fails, or starts past a watcher's last event,
// leaves that watcher to read the log itself. Every sharedStorePoll it
// also reads each watched game's log once, so a notification lost on the
// way costs a short delay, never an event, at one read per game rather
// than one per watcher.
type relay struct {
	s   *Service
	ctx context.Context
	// mu makes the LISTEN goroutine's reads and the poll's one at a time.
	mu   sync.Mutex
	read map[string]int64 // the last event read of each watched game
}

// notify is the Notifier callback, called on one goroutine.
func (r *relay) notify(id string, seq int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.s.hub.watched(id) {
		delete(r.read, id)
		return
	}
	after, ok := r.read[id]
	switch {
	case ok && after >= seq:
		return // read already
	case !ok:
		after = seq - 1
	}
	evs, err := r.s.store.Events(r.ctx, id, after, watchPage)
	if err != nil || len(evs) == 0 {
		r.s.hub.poke(id, seq)
		return
	}
	r.read[id] = evs[len(evs)-1].Sequence
	r.s.hub.publish(id, evs)
}

// poll reads every watched game's log every period until the context
// ends: past the last event read, or, for a game not read yet, its last
// sequence, so that only watchers behind it read the log themselves.
func (r *relay) poll(period time.Duration) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-r.ctx.Done():
			return
		case <-t.C:
		}
		for _, id := range r.s.hub.games() {
			r.pollGame(id)
		}
		r.forget()
	}
}

// forget drops what was read of the games with no watchers here: notify
// drops a game only when a notification of it comes, and a game over gets
// none.
func (r *relay) forget() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for id := range r.read {
		if !r.s.hub.watched(id) {
			delete(r.read, id)
		}
	}
}

func (r *relay) pollGame(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	after, ok := r.read[id]
	if !ok {
		g, err := r.s.store.Get(r.ctx, id)
		if err == nil {
			r.read[id] = g.LastEvent
			r.s.hub.poke(id, g.LastEvent)
		}
		return
	}
	evs, err := r.s.store.Events(r.ctx, id, after, watchPage)
	switch {
	case err != nil:
		r.s.hub.poke(id, 0)
	case len(evs) > 0:
		r.read[id] = evs[len(evs)-1].Sequence
		r.s.hub.publish(id, evs)
	}
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
	return s.create(ctx, v, nil, TimeControl{}, nil)
}

// CreateTimed is Create with a time control (clock.go): tc.Initial (and
// tc.Increment) or tc.PerMove, within Limits.MinClockTime and
// Limits.MaxClockTime. Errors as Create, and CodeInvalidArgument naming
// the field of game.time_control out of bounds.
func (s *Service) CreateTimed(ctx context.Context, v engine.Variant, tc TimeControl) (*Game, Tokens, error) {
	return s.create(ctx, v, nil, tc, nil)
}

// create makes a game; with ck, under that CreateGame request id
// (requestids.go). The engine's side gets no token.
func (s *Service) create(ctx context.Context, v engine.Variant, opp *EngineOpponent, tc TimeControl, ck *createKey) (*Game, Tokens, error) {
	eg, err := engine.NewGame(v)
	if err != nil {
		return nil, Tokens{}, invalid("game.variant", "invalid variant: %v", err)
	}
	if tc, err = s.checkTimeControl(tc); err != nil {
		return nil, Tokens{}, err
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
		ID:          id.String(),
		Variant:     eg.Variant(),
		Initial:     eg.InitialPosition(),
		Position:    eg.Position(),
		Outcome:     eg.Outcome(),
		Version:     1,
		CreateTime:  now,
		UpdateTime:  now,
		TokenHash:   [2][32]byte{sha256.Sum256([]byte(red)), sha256.Sum256([]byte(black))},
		Engine:      opp,
		TimeControl: tc,
	}
	startClock(g, now)
	events := []Event{{Kind: EventCreated, Variant: g.Variant}}
	s.stamp(g, events)
	tokens := Tokens{Red: red, Black: black}
	if opp != nil { // the engine's token is never handed out
		if opp.Side == engine.Red {
			tokens.Red = ""
		} else {
			tokens.Black = ""
		}
	}
	if ck == nil {
		err = s.store.Create(ctx, g, events)
	} else {
		var rec *CreateRecord
		if rec, err = ck.record(g, tokens); err != nil {
			return nil, Tokens{}, err
		}
		err = s.store.CreateRequested(ctx, g, events, rec)
	}
	if errors.Is(err, ErrDuplicateRequest) {
		return nil, Tokens{}, err
	}
	if err != nil {
		return nil, Tokens{}, storeError(err)
	}
	return g, tokens, nil
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
		if events[i].Time.IsZero() { // a flag's end is dated at its deadline
			events[i].Time = g.UpdateTime
		}
		events[i].Clock = g.Clock.clone()
		events[i].Ply = g.Ply()
		events[i].Position = g.Position
		events[i].rendered = new(renderCache)
	}
}

// Get returns a game without its moves, or CodeNotFound; WithMoves adds
// them.
func (s *Service) Get(ctx context.Context, id string) (*Game, error) {
	if g, ok := plantedStaleGet(id); ok {
		return g, nil
	}
	g, err := s.store.Get(ctx, id)
	if err != nil {
		return nil, storeError(err)
	}
	plantedStalePut(g)
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

// List returns up to q.Limit games after the game with id q.After
// (creation order), with their moves when q.Moves, and whether more may
// follow.
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
