package games

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/damone-rules/damone/internal/engine"
)

// Request ids (AIP-155, game_service.proto) make every change retry-safe:
// a change repeated with the id of one that succeeded returns the first
// answer and changes nothing. One side's ids on one game are one
// namespace for its moves, resignations and draw offers and answers
// (RequestRecord, kept with the game); a CreateGame id is global
// (CreateRecord), as that call has no caller to scope it to. Every record
// lives as long as its game.
//
// No error or log line ever shows an id: an id is the client's, and a
// CreateGame id unlocks the game's tokens.

// MinCreateRequestIDBytes is the shortest CreateGame request id: the id
// guards the tokens, so a short one is refused (a UUID has 36 bytes).
const MinCreateRequestIDBytes = 16

// CreateRequest is a game to create (see CreateGame).
type CreateRequest struct {
	Variant     engine.Variant
	Engine      *EngineOpponent // if set, the engine plays this side
	TimeControl TimeControl     // the zero value: no clocks
	// RequestID, if set, makes a retry return the first response: 16 to
	// MaxRequestIDBytes bytes of UTF-8, best a random UUID.
	RequestID string
}

// CreateGame creates a game as Create, CreateTimed, CreateAgainstEngine or
// CreateAgainstEngineTimed do, by c's fields. With a request id that an
// earlier CreateGame succeeded with, it returns that call's game (as it
// was created) and tokens, and creates nothing; the replay comes after
// the checks of c (CodeInvalidArgument) and before the limits
// (CodeResourceExhausted). The same id with other settings is
// CodeInvalidArgument on field "request_id".
func (s *Service) CreateGame(ctx context.Context, c CreateRequest) (*Game, Tokens, error) {
	if c.RequestID == "" {
		return s.dispatchCreate(ctx, c, nil)
	}
	if err := checkRequestID(c.RequestID); err != nil {
		return nil, Tokens{}, err
	}
	if len(c.RequestID) < MinCreateRequestIDBytes {
		return nil, Tokens{}, invalid("request_id", "a CreateGame request_id is %d bytes long; it must have at least %d (use a random UUID): it guards the game's tokens",
			len(c.RequestID), MinCreateRequestIDBytes)
	}
	if c.Engine != nil {
		if err := s.checkEngineOpponent(*c.Engine); err != nil {
			return nil, Tokens{}, err
		}
	}
	if _, err := engine.NewGame(c.Variant); err != nil {
		return nil, Tokens{}, invalid("game.variant", "invalid variant: %v", err)
	}
	if _, err := s.checkTimeControl(c.TimeControl); err != nil {
		return nil, Tokens{}, err
	}
	ck := &createKey{id: c.RequestID, key: LookupKey(c.RequestID), settings: SettingsDigest(c.Variant, c.Engine, c.TimeControl)}
	for attempt := 1; ; attempt++ {
		g, tokens, err := s.replayCreate(ctx, ck)
		if g != nil || err != nil {
			return g, tokens, err
		}
		g, tokens, err = s.dispatchCreate(ctx, c, ck)
		if errors.Is(err, ErrDuplicateRequest) && attempt < 2 {
			continue // a retry of ours landed first: answer as it did
		}
		return g, tokens, err
	}
}

func (s *Service) dispatchCreate(ctx context.Context, c CreateRequest, ck *createKey) (*Game, Tokens, error) {
	if c.Engine != nil {
		return s.createAgainstEngine(ctx, c.Variant, *c.Engine, c.TimeControl, ck)
	}
	return s.create(ctx, c.Variant, nil, c.TimeControl, ck)
}

// createKey is what a create under a request id needs of it.
type createKey struct {
	id       string // the client's id: only ever in memory
	key      string // LookupKey(id)
	settings string // SettingsDigest of the request
}

// record returns the create record of g, created with tokens.
func (ck *createKey) record(g *Game, tokens Tokens) (*CreateRecord, error) {
	created, err := EncodeGame(g)
	if err != nil {
		return nil, err
	}
	sealed, err := sealTokens(ck.id, g.ID, tokens)
	if err != nil {
		return nil, err
	}
	return &CreateRecord{Key: ck.key, GameID: g.ID, Settings: ck.settings, Game: created, Sealed: sealed}, nil
}

// replayCreate returns the first response to a CreateGame with ck's id,
// or nothing if there was none.
func (s *Service) replayCreate(ctx context.Context, ck *createKey) (*Game, Tokens, error) {
	rec, err := s.store.CreateRequest(ctx, ck.key)
	if errors.Is(err, ErrNotFound) {
		return nil, Tokens{}, nil
	}
	if err != nil {
		return nil, Tokens{}, storeError(err)
	}
	if rec.Settings != ck.settings {
		return nil, Tokens{}, invalid("request_id", "this request_id was already used by a CreateGame with other game settings; use a new request_id for a new game")
	}
	tokens, err := openTokens(ck.id, rec.GameID, rec.Sealed)
	if err != nil {
		return nil, Tokens{}, fmt.Errorf("game %s: the tokens of its create request: %w", rec.GameID, err)
	}
	g, err := DecodeGame(rec.Game)
	if err != nil {
		return nil, Tokens{}, fmt.Errorf("game %s: its create request: %w", rec.GameID, err)
	}
	return g, tokens, nil
}

// LookupKey is the key a store keeps a CreateGame request id's record
// under: a digest, so the store never holds the id, which unlocks the
// tokens (lowercase hex of a SHA-256, 64 characters).
func LookupKey(requestID string) string {
	sum := sha256.Sum256([]byte("damone CreateGame request_id lookup v1\x00" + requestID))
	return hex.EncodeToString(sum[:])
}

// SettingsDigest is a digest of a CreateGame's settings as requested, so
// a replay can tell the same request from another with the same id
// (lowercase hex of a SHA-256).
func SettingsDigest(v engine.Variant, opp *EngineOpponent, tc TimeControl) string {
	type settings struct {
		Variant variantRecord     `json:"variant"`
		Engine  *engineRecord     `json:"engine,omitempty"`
		Clock   timeControlRecord `json:"time_control"`
	}
	st := settings{Variant: encodeVariant(&v), Clock: timeControlRecord{InitialNS: int64(tc.Initial), IncrementNS: int64(tc.Increment),
		PerMoveNS: int64(tc.PerMove), FirstMoveNS: int64(tc.FirstMove)}}
	if opp != nil {
		st.Engine = &engineRecord{Side: opp.Side.String(), MoveTimeNS: opp.MoveTime.Nanoseconds(), Depth: opp.Depth}
	}
	b, _ := json.Marshal(st) // plain strings and numbers: cannot fail
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// tokenCipher is AES-256-GCM under a key derived (HKDF-SHA256) from a
// CreateGame request id: only a caller with the id can open the sealed
// tokens, and an id is random enough (a UUID) to need no slow KDF.
func tokenCipher(requestID string) (cipher.AEAD, error) {
	key, err := hkdf.Key(sha256.New, []byte(requestID), nil, "damone CreateGame tokens v1", 32)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

type sealedTokens struct {
	Red   string `json:"red"`
	Black string `json:"black"`
}

// sealTokens encrypts t for the id, bound to the game (a record moved to
// another game does not open): a random nonce, then the ciphertext.
func sealTokens(requestID, gameID string, t Tokens) ([]byte, error) {
	aead, err := tokenCipher(requestID)
	if err != nil {
		return nil, err
	}
	plain, err := json.Marshal(sealedTokens{Red: t.Red, Black: t.Black})
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(plain)+aead.Overhead())
	rand.Read(nonce) // never fails (crypto/rand panics instead)
	return aead.Seal(nonce, nonce, plain, []byte(gameID)), nil
}

// openTokens reverses sealTokens.
func openTokens(requestID, gameID string, sealed []byte) (Tokens, error) {
	aead, err := tokenCipher(requestID)
	if err != nil {
		return Tokens{}, err
	}
	if len(sealed) < aead.NonceSize() {
		return Tokens{}, errors.New("sealed tokens too short")
	}
	plain, err := aead.Open(nil, sealed[:aead.NonceSize()], sealed[aead.NonceSize():], []byte(gameID))
	if err != nil {
		return Tokens{}, errors.New("sealed tokens do not open with this request id")
	}
	var t sealedTokens
	if err := json.Unmarshal(plain, &t); err != nil {
		return Tokens{}, err
	}
	return Tokens{Red: t.Red, Black: t.Black}, nil
}

// Action is a change to a game that is not a move, for the side whose
// token is given: Call is CallResign, CallOfferDraw, CallAcceptDraw or
// CallDeclineDraw.
type Action struct {
	GameID    string
	Token     string
	Call      Call
	RequestID string // if set, a retry returns the first result (as MoveRequest.RequestID)
}

// Act makes a Resign, OfferDraw or AnswerDrawOffer, by a.Call, with their
// errors. With a request id the same side already succeeded with on this
// game for the same call, it returns the game as that call left it and
// changes nothing, whatever happened since (after the token's check,
// before any check on the game's state); the same id used for another
// call or move is CodeInvalidArgument on field "request_id".
func (s *Service) Act(ctx context.Context, a Action) (*Game, error) {
	var fn func(*Game, engine.Side) ([]Event, error)
	switch a.Call {
	case CallResign:
		fn = resign
	case CallOfferDraw:
		fn = s.offerDraw
	case CallAcceptDraw:
		fn = answerDraw(true)
	case CallDeclineDraw:
		fn = answerDraw(false)
	default:
		return nil, fmt.Errorf("games: unknown action %q", a.Call)
	}
	return s.change(ctx, a, fn)
}

// callNames name the calls in errors as the API does.
var callNames = map[Call]string{
	CallMove:        "MakeMove",
	CallResign:      "Resign",
	CallOfferDraw:   "OfferDraw",
	CallAcceptDraw:  "AnswerDrawOffer (accept)",
	CallDeclineDraw: "AnswerDrawOffer (decline)",
}

// errRequestReused is the error of an id used before for another call.
func errRequestReused(used Call) *Error {
	return invalid("request_id", "this side already used this request_id on this game for a %s call; use a new request_id for a new request",
		callNames[used])
}

// replayAction returns the first result of a request other than a move,
// or nothing if there was none.
func (s *Service) replayAction(ctx context.Context, g *Game, a Action, reqID string) (*Game, error) {
	rec, err := s.store.Request(ctx, g.ID, reqID)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, storeError(err)
	}
	if rec.Call != a.Call {
		return nil, errRequestReused(rec.Call)
	}
	first, err := DecodeGame(rec.Head)
	if err != nil {
		return nil, fmt.Errorf("game %s: a request record: %w", g.ID, err)
	}
	if first.ID != g.ID {
		return nil, fmt.Errorf("game %s: a request record of game %s", g.ID, first.ID)
	}
	if planted("replay-action-current-state") {
		return g, nil
	}
	return first, nil
}
