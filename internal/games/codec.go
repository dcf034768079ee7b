package games

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/damone-rules/damone/internal/engine"
)

// The stored form of games, events and request records, shared by every
// durable store: JSON an operator can read, with positions in the text
// form of docs/notation.md and moves as origin, landings, rank and
// promotion. It is versioned by RecordVersion so a future change can read
// old rows.

// RecordVersion is written into every record. Version 2 game records
// leave the moves out (the event log has them) and keep the ply count and
// the positions the repetition rule still counts; version 1 game records,
// with every move inline, are still read (DecodeGame), and a game is
// written as version 2 at its next change. Events and request records
// did not change: both versions are read.
const RecordVersion = 2

// ClockRecordVersion is written into the game record of a game with a
// time control instead: a binary from before clocks refuses such a
// record (an unknown version) rather than read it without its clock and
// write it back so, which in a rolling upgrade would leave the game's
// deadline to expire forever. Events keep RecordVersion: their clock is
// a copy for watchers.
const ClockRecordVersion = 3

type variantRecord struct {
	Setup           string `json:"setup"`
	Start           string `json:"start,omitempty"`
	WinCondition    string `json:"win_condition"`
	FirstPlayer     string `json:"first_player"`
	RepetitionDraw  bool   `json:"repetition_draw"`
	NoProgressLimit int    `json:"no_progress_limit"`
}

type pieceRecord struct {
	Square string `json:"square"`
	Side   string `json:"side"`
	Rank   string `json:"rank"`
}

type moveRecord struct {
	Notation string        `json:"notation"`
	Side     string        `json:"side"`
	Rank     string        `json:"rank"`
	From     string        `json:"from"`
	Landings []string      `json:"landings"`
	Promoted bool          `json:"promoted,omitempty"`
	Captured []pieceRecord `json:"captured,omitempty"`
}

type outcomeRecord struct {
	Result uint8 `json:"result"`
	Reason uint8 `json:"reason"`
}

type gameRecord struct {
	V          int           `json:"v"`
	ID         string        `json:"id"`
	Variant    variantRecord `json:"variant"`
	Initial    string        `json:"initial"`
	Position   string        `json:"position"`
	Plies      int           `json:"plies"`
	Recent     []string      `json:"recent,omitempty"`
	Moves      []moveRecord  `json:"moves,omitempty"` // version 1 only
	Outcome    outcomeRecord `json:"outcome"`
	DrawOffer  string        `json:"draw_offer,omitempty"`
	Version    int64         `json:"version"`
	LastEvent  int64         `json:"last_event"`
	CreateTime time.Time     `json:"create_time"`
	UpdateTime time.Time     `json:"update_time"`
	TokenHash  [2]string     `json:"token_sha256"`
	Engine     *engineRecord `json:"engine,omitempty"`
	// A game with a time control: the control and the clocks' state.
	TimeControl *timeControlRecord `json:"time_control,omitempty"`
	Clock       *clockRecord       `json:"clock,omitempty"`
}

// Durations in nanoseconds.
type timeControlRecord struct {
	InitialNS   int64 `json:"initial_ns,omitempty"`
	IncrementNS int64 `json:"increment_ns,omitempty"`
	PerMoveNS   int64 `json:"per_move_ns,omitempty"`
	FirstMoveNS int64 `json:"first_move_ns"`
}

// clockRecord is a Clock; in an event, Since is the event's time and is
// left out.
type clockRecord struct {
	RemainingNS [2]int64   `json:"remaining_ns"`
	Since       *time.Time `json:"since,omitempty"`
	Deadline    *time.Time `json:"deadline,omitempty"`
	Running     bool       `json:"running,omitempty"`
}

type engineRecord struct {
	Side string `json:"side"`
	// The move time exactly, in nanoseconds; and in whole milliseconds,
	// as records had it before (read when there is no move_time_ns).
	MoveTimeNS int64 `json:"move_time_ns,omitempty"`
	MoveTimeMS int64 `json:"move_time_ms,omitempty"`
	Depth      int   `json:"depth,omitempty"`
}

type eventRecord struct {
	V        int            `json:"v"`
	GameID   string         `json:"game"`
	Sequence int64          `json:"seq"`
	Time     time.Time      `json:"time"`
	Kind     EventKind      `json:"kind"`
	Ply      int            `json:"ply"`
	Position string         `json:"position"`
	Variant  *variantRecord `json:"variant,omitempty"`
	Move     *moveRecord    `json:"move,omitempty"`
	Side     string         `json:"side,omitempty"`
	ByMove   bool           `json:"by_move,omitempty"`
	Outcome  *outcomeRecord `json:"outcome,omitempty"`
	Clock    *clockRecord   `json:"clock,omitempty"`
}

// EncodeGame returns the stored form of g, without its moves: its size
// does not grow with the game (the repetition rule's positions aside,
// which the no-progress count bounds). It writes what json.Marshal of
// its gameRecord would, byte for byte (TestEncodeGameIsJSON), without
// reflection: every move rewrites its game's record, positions and all,
// and encoding/json made that most of a move's cost in a durable store.
func EncodeGame(g *Game) ([]byte, error) {
	b := make([]byte, 0, 640+len(g.Recent)*80)
	b = append(b, `{"v":`...)
	b = strconv.AppendInt(b, int64(gameRecordVersion(g)), 10)
	b = appendField(b, "id", g.ID)
	b = append(b, `,"variant":`...)
	b = appendVariant(b, &g.Variant)
	b = append(b, `,"initial":"`...)
	b = g.Initial.AppendText(b)
	b = append(b, `","position":"`...)
	b = g.Position.AppendText(b)
	b = append(b, `","plies":`...)
	b = strconv.AppendInt(b, int64(g.Plies), 10)
	if len(g.Recent) > 0 {
		b = append(b, `,"recent":[`...)
		for i := range g.Recent {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '"')
			b = g.Recent[i].AppendText(b) // letters, digits, ':' and ',': nothing to escape
			b = append(b, '"')
		}
		b = append(b, ']')
	}
	b = append(b, `,"outcome":{"result":`...)
	b = strconv.AppendUint(b, uint64(g.Outcome.Result), 10)
	b = append(b, `,"reason":`...)
	b = strconv.AppendUint(b, uint64(g.Outcome.Reason), 10)
	b = append(b, '}')
	if g.HasOffer {
		b = appendField(b, "draw_offer", g.DrawOffer.String())
	}
	b = append(b, `,"version":`...)
	b = strconv.AppendInt(b, g.Version, 10)
	b = append(b, `,"last_event":`...)
	b = strconv.AppendInt(b, g.LastEvent, 10)
	var err error
	if b, err = appendTime(b, "create_time", g.CreateTime); err != nil {
		return nil, err
	}
	if b, err = appendTime(b, "update_time", g.UpdateTime); err != nil {
		return nil, err
	}
	b = append(b, `,"token_sha256":["`...)
	b = hex.AppendEncode(b, g.TokenHash[0][:])
	b = append(b, `","`...)
	b = hex.AppendEncode(b, g.TokenHash[1][:])
	b = append(b, `"]`...)
	if e := g.Engine; e != nil {
		b = append(b, `,"engine":{"side":`...)
		b = appendString(b, e.Side.String())
		if ns := e.MoveTime.Nanoseconds(); ns != 0 {
			b = append(b, `,"move_time_ns":`...)
			b = strconv.AppendInt(b, ns, 10)
		}
		if ms := e.MoveTime.Milliseconds(); ms != 0 {
			b = append(b, `,"move_time_ms":`...)
			b = strconv.AppendInt(b, ms, 10)
		}
		if e.Depth != 0 {
			b = append(b, `,"depth":`...)
			b = strconv.AppendInt(b, int64(e.Depth), 10)
		}
		b = append(b, '}')
	}
	if g.TimeControl.On() {
		tc := g.TimeControl
		b = append(b, `,"time_control":{`...)
		if tc.Initial != 0 {
			b = append(b, `"initial_ns":`...)
			b = strconv.AppendInt(b, int64(tc.Initial), 10)
			b = append(b, ',')
		}
		if tc.Increment != 0 {
			b = append(b, `"increment_ns":`...)
			b = strconv.AppendInt(b, int64(tc.Increment), 10)
			b = append(b, ',')
		}
		if tc.PerMove != 0 {
			b = append(b, `"per_move_ns":`...)
			b = strconv.AppendInt(b, int64(tc.PerMove), 10)
			b = append(b, ',')
		}
		b = append(b, `"first_move_ns":`...)
		b = strconv.AppendInt(b, int64(tc.FirstMove), 10)
		b = append(b, '}')
	}
	if g.Clock != nil {
		b = append(b, `,"clock":`...)
		if b, err = appendClock(b, g.Clock, true); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// gameRecordVersion is the version g's record is written in.
func gameRecordVersion(g *Game) int {
	if g.TimeControl.On() {
		return ClockRecordVersion
	}
	return RecordVersion
}

// appendClock appends c as json.Marshal writes its clockRecord, Since
// included when withSince.
func appendClock(b []byte, c *Clock, withSince bool) ([]byte, error) {
	b = append(b, `{"remaining_ns":[`...)
	b = strconv.AppendInt(b, int64(c.Remaining[0]), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(c.Remaining[1]), 10)
	b = append(b, ']')
	var err error
	if withSince {
		if b, err = appendTime(b, "since", c.Since); err != nil {
			return nil, err
		}
	}
	if !c.Deadline.IsZero() {
		if b, err = appendTime(b, "deadline", c.Deadline); err != nil {
			return nil, err
		}
	}
	if c.Running {
		b = append(b, `,"running":true`...)
	}
	return append(b, '}'), nil
}

// encodeClock returns c's record (nil for nil).
func encodeClock(c *Clock, withSince bool) *clockRecord {
	if c == nil {
		return nil
	}
	r := &clockRecord{RemainingNS: [2]int64{int64(c.Remaining[0]), int64(c.Remaining[1])}, Running: c.Running}
	if withSince {
		since := c.Since
		r.Since = &since
	}
	if !c.Deadline.IsZero() {
		d := c.Deadline
		r.Deadline = &d
	}
	return r
}

// decodeClock checks and reads a clock record; since stands in for a
// missing Since (an event's time).
func decodeClock(r *clockRecord, since time.Time) (*Clock, error) {
	c := &Clock{Remaining: [2]time.Duration{time.Duration(r.RemainingNS[0]), time.Duration(r.RemainingNS[1])}, Since: since, Running: r.Running}
	if c.Remaining[0] < 0 || c.Remaining[1] < 0 {
		return nil, fmt.Errorf("clock: negative remaining time")
	}
	if r.Since != nil {
		c.Since = *r.Since
	}
	if r.Deadline != nil {
		c.Deadline = *r.Deadline
	}
	if c.Running && c.Deadline.IsZero() {
		return nil, fmt.Errorf("clock: running without a deadline")
	}
	return c, nil
}

// appendField appends `,"name":` and s as a JSON string.
func appendField(b []byte, name, s string) []byte {
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return appendString(b, s)
}

// appendString appends s as encoding/json writes a string: as it is when
// no byte needs escaping (printable ASCII but for '"', '\\' and the HTML
// characters it escapes), else by encoding/json itself.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always encodes
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendTime appends `,"name":` and t as time.Time's MarshalJSON does.
func appendTime(b []byte, name string, t time.Time) ([]byte, error) {
	q, err := t.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return append(b, q...), nil
}

// DecodeGame reads a game written by EncodeGame (or, from version 1,
// with its moves inline: then Moves is filled and Recent worked out by
// replaying them); a record that does not make a valid game is an error,
// never a silently different game.
func DecodeGame(b []byte) (*Game, error) {
	var r gameRecord
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("game record: %w", err)
	}
	if r.V != 1 && r.V != RecordVersion && r.V != ClockRecordVersion {
		return nil, fmt.Errorf("game record %s: unknown record version %d", r.ID, r.V)
	}
	if (r.V == ClockRecordVersion) != (r.TimeControl != nil) {
		return nil, fmt.Errorf("game record %s: version %d with time control %v", r.ID, r.V, r.TimeControl != nil)
	}
	g := &Game{ID: r.ID, Version: r.Version, LastEvent: r.LastEvent, CreateTime: r.CreateTime, UpdateTime: r.UpdateTime,
		Outcome: engine.Outcome{Result: engine.Result(r.Outcome.Result), Reason: engine.Reason(r.Outcome.Reason)}}
	var err error
	if g.Variant, err = decodeVariant(&r.Variant); err != nil {
		return nil, fmt.Errorf("game record %s: %w", r.ID, err)
	}
	if g.Initial, err = engine.ParsePosition(r.Initial); err != nil {
		return nil, fmt.Errorf("game record %s: initial: %w", r.ID, err)
	}
	if g.Position, err = engine.ParsePosition(r.Position); err != nil {
		return nil, fmt.Errorf("game record %s: position: %w", r.ID, err)
	}
	if r.Plies < 0 {
		return nil, fmt.Errorf("game record %s: negative ply count %d", r.ID, r.Plies)
	}
	g.Plies = r.Plies
	for i, text := range r.Recent {
		p, err := engine.ParsePosition(text)
		if err != nil {
			return nil, fmt.Errorf("game record %s: recent position %d: %w", r.ID, i+1, err)
		}
		g.Recent = append(g.Recent, p)
	}
	if r.V == 1 {
		if err := decodeInlineMoves(g, &r); err != nil {
			return nil, fmt.Errorf("game record %s: %w", r.ID, err)
		}
	}
	if r.DrawOffer != "" {
		if g.DrawOffer, err = engine.ParseSide(r.DrawOffer); err != nil {
			return nil, fmt.Errorf("game record %s: draw offer: %w", r.ID, err)
		}
		g.HasOffer = true
	}
	if e := r.Engine; e != nil {
		side, err := engine.ParseSide(e.Side)
		if err != nil {
			return nil, fmt.Errorf("game record %s: engine side: %w", r.ID, err)
		}
		g.Engine = &EngineOpponent{Side: side, MoveTime: time.Duration(e.MoveTimeMS) * time.Millisecond, Depth: e.Depth}
		if e.MoveTimeNS != 0 {
			g.Engine.MoveTime = time.Duration(e.MoveTimeNS)
		}
	}
	if tc := r.TimeControl; tc != nil {
		g.TimeControl = TimeControl{Initial: time.Duration(tc.InitialNS), Increment: time.Duration(tc.IncrementNS),
			PerMove: time.Duration(tc.PerMoveNS), FirstMove: time.Duration(tc.FirstMoveNS)}
		if !g.TimeControl.On() || (tc.InitialNS > 0) == (tc.PerMoveNS > 0) || tc.IncrementNS < 0 || tc.FirstMoveNS <= 0 {
			return nil, fmt.Errorf("game record %s: invalid time control", r.ID)
		}
	}
	if (r.TimeControl == nil) != (r.Clock == nil) {
		return nil, fmt.Errorf("game record %s: a clock goes with a time control", r.ID)
	}
	if r.Clock != nil {
		if r.Clock.Since == nil {
			return nil, fmt.Errorf("game record %s: clock without its time", r.ID)
		}
		if g.Clock, err = decodeClock(r.Clock, time.Time{}); err != nil {
			return nil, fmt.Errorf("game record %s: %w", r.ID, err)
		}
	}
	for i, h := range r.TokenHash {
		if b, err := hex.DecodeString(h); err != nil || len(b) != 32 {
			return nil, fmt.Errorf("game record %s: bad token hash", r.ID)
		} else {
			copy(g.TokenHash[i][:], b)
		}
	}
	return g, nil
}

// decodeInlineMoves reads a version 1 record's moves and works out what
// version 2 keeps instead: the ply count and, by replaying them, the
// positions the repetition rule still counts.
func decodeInlineMoves(g *Game, r *gameRecord) error {
	g.Moves = make([]PlayedMove, len(r.Moves))
	for i := range r.Moves {
		var err error
		if g.Moves[i], err = decodeMove(&r.Moves[i]); err != nil {
			return fmt.Errorf("move %d: %w", i+1, err)
		}
	}
	g.Plies = len(g.Moves)
	eg, err := g.replay()
	if err != nil {
		return fmt.Errorf("moves: %w", err)
	}
	if got := eg.Position(); got.String() != g.Position.String() {
		return fmt.Errorf("the moves lead to %s, not to the recorded position %s", got.String(), g.Position.String())
	}
	g.Recent = eg.Recent()
	return nil
}

// requestRecord's fields after seq are absent from records written before
// they existed (version 0): such a record answers a retry with the game
// as it is now. Records of calls other than moves (call set) have head,
// the game after the call, instead of version..clock.
type requestRecord struct {
	RequestID string          `json:"request_id"`
	Call      string          `json:"call,omitempty"`
	Move      string          `json:"move,omitempty"`
	Ply       int             `json:"ply"`
	Sequence  int64           `json:"seq"`
	Version   int64           `json:"version,omitempty"`
	LastEvent int64           `json:"last_event,omitempty"`
	Time      *time.Time      `json:"time,omitempty"`
	DrawOffer string          `json:"draw_offer,omitempty"`
	Clock     *clockRecord    `json:"clock,omitempty"`
	Head      json.RawMessage `json:"head,omitempty"`
}

// EncodeRequest returns the stored form of a request record.
func EncodeRequest(r *RequestRecord) ([]byte, error) {
	rec := requestRecord{RequestID: r.RequestID, Call: string(r.Call), Move: r.Move, Ply: r.Ply, Sequence: r.Sequence,
		Version: r.Version, LastEvent: r.LastEvent, Clock: encodeClock(r.Clock, true), Head: r.Head}
	if r.Version > 0 {
		t := r.Time
		rec.Time = &t
	}
	if r.HasOffer {
		rec.DrawOffer = r.DrawOffer.String()
	}
	return json.Marshal(rec)
}

// DecodeRequest reads a request record written by EncodeRequest.
func DecodeRequest(b []byte) (RequestRecord, error) {
	var rec requestRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		return RequestRecord{}, fmt.Errorf("request record: %w", err)
	}
	r := RequestRecord{RequestID: rec.RequestID, Call: Call(rec.Call), Move: rec.Move, Ply: rec.Ply, Sequence: rec.Sequence,
		Version: rec.Version, LastEvent: rec.LastEvent, Head: rec.Head}
	switch r.Call {
	case CallMove:
		if r.Move == "" {
			return RequestRecord{}, errors.New("request record: a move's record without its move")
		}
	case CallResign, CallOfferDraw, CallAcceptDraw, CallDeclineDraw:
		if len(r.Head) == 0 {
			return RequestRecord{}, fmt.Errorf("request record: a %s record without the game", r.Call)
		}
	default:
		return RequestRecord{}, fmt.Errorf("request record: unknown call %s", strconv.Quote(rec.Call))
	}
	if rec.Time != nil {
		r.Time = *rec.Time
	}
	if rec.Clock != nil {
		if rec.Clock.Since == nil {
			return RequestRecord{}, errors.New("request record: clock without its time")
		}
		c, err := decodeClock(rec.Clock, time.Time{})
		if err != nil {
			return RequestRecord{}, fmt.Errorf("request record: %w", err)
		}
		r.Clock = c
	}
	if rec.DrawOffer != "" {
		side, err := engine.ParseSide(rec.DrawOffer)
		if err != nil {
			return RequestRecord{}, fmt.Errorf("request record: draw offer: %w", err)
		}
		r.HasOffer, r.DrawOffer = true, side
	}
	return r, nil
}

// createRecord is the stored form of a CreateRecord (the key is the
// store's key, not part of the record).
type createRecord struct {
	V        int             `json:"v"`
	GameID   string          `json:"game"`
	Settings string          `json:"settings_sha256"`
	Game     json.RawMessage `json:"created"`
	Sealed   []byte          `json:"tokens_sealed"` // base64 in JSON
}

// EncodeCreateRequest returns the stored form of a create record.
func EncodeCreateRequest(r *CreateRecord) ([]byte, error) {
	return json.Marshal(createRecord{V: 1, GameID: r.GameID, Settings: r.Settings, Game: r.Game, Sealed: r.Sealed})
}

// DecodeCreateRequest reads a create record of the given key, written by
// EncodeCreateRequest.
func DecodeCreateRequest(key string, b []byte) (CreateRecord, error) {
	var rec createRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		return CreateRecord{}, fmt.Errorf("create request record: %w", err)
	}
	switch {
	case rec.V != 1:
		return CreateRecord{}, fmt.Errorf("create request record: unknown version %d", rec.V)
	case rec.GameID == "" || len(rec.Game) == 0 || len(rec.Sealed) == 0 || len(rec.Settings) != 64:
		return CreateRecord{}, errors.New("create request record: a field is missing")
	}
	return CreateRecord{Key: key, GameID: rec.GameID, Settings: rec.Settings, Game: rec.Game, Sealed: rec.Sealed}, nil
}

func encodeVariant(v *engine.Variant) variantRecord {
	r := variantRecord{Setup: v.Setup.String(), WinCondition: v.WinCondition.String(), FirstPlayer: v.FirstPlayer.String(),
		RepetitionDraw: v.RepetitionDraw, NoProgressLimit: v.NoProgressLimit}
	if v.Setup == engine.SetupCustom {
		r.Start = v.Start.String()
	}
	return r
}

func decodeVariant(r *variantRecord) (engine.Variant, error) {
	v := engine.Variant{RepetitionDraw: r.RepetitionDraw, NoProgressLimit: r.NoProgressLimit}
	var err error
	if r.Setup == engine.SetupCustom.String() {
		v.Setup = engine.SetupCustom
		if v.Start, err = engine.ParsePosition(r.Start); err != nil {
			return v, err
		}
	} else if v.Setup, err = engine.ParseSetup(r.Setup); err != nil {
		return v, err
	}
	switch r.WinCondition {
	case engine.CaptureAllPieces.String():
		v.WinCondition = engine.CaptureAllPieces
	case engine.CaptureAllDamones.String():
		v.WinCondition = engine.CaptureAllDamones
	default:
		return v, fmt.Errorf("unknown win condition %q", r.WinCondition)
	}
	v.FirstPlayer, err = engine.ParseSide(r.FirstPlayer)
	return v, err
}

func encodeMove(m PlayedMove) moveRecord {
	_, promoted := m.Move.Promotion()
	r := moveRecord{Notation: m.Move.String(), Side: m.Side.String(), Rank: m.Move.Rank().String(),
		From: m.Move.From().String(), Promoted: promoted}
	for _, s := range m.Move.Landings() {
		r.Landings = append(r.Landings, s.String())
	}
	for _, c := range m.Captured {
		r.Captured = append(r.Captured, pieceRecord{c.Square.String(), c.Side.String(), c.Rank.String()})
	}
	return r
}

func decodeMove(r *moveRecord) (PlayedMove, error) {
	var pm PlayedMove
	rank, err := engine.ParseRank(r.Rank)
	if err != nil {
		return pm, err
	}
	if pm.Side, err = engine.ParseSide(r.Side); err != nil {
		return pm, err
	}
	from, err := engine.ParseSquare(r.From)
	if err != nil {
		return pm, err
	}
	landings := make([]engine.Square, len(r.Landings))
	for i, l := range r.Landings {
		if landings[i], err = engine.ParseSquare(l); err != nil {
			return pm, err
		}
	}
	if pm.Move, err = engine.MoveFromPath(rank, from, landings, r.Promoted); err != nil {
		return pm, err
	}
	if pm.Move.String() != r.Notation {
		return pm, fmt.Errorf("notation %q does not match its path %s", r.Notation, pm.Move.String())
	}
	for _, c := range r.Captured {
		at, err := engine.ParseSquare(c.Square)
		if err != nil {
			return pm, err
		}
		side, err := engine.ParseSide(c.Side)
		if err != nil {
			return pm, err
		}
		rk, err := engine.ParseRank(c.Rank)
		if err != nil {
			return pm, err
		}
		pm.Captured = append(pm.Captured, engine.PlacedPiece{Square: at, Piece: engine.Piece{Side: side, Rank: rk}})
	}
	return pm, nil
}
