package games

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/damone-rules/damone/internal/engine"
)

// The stored form of events (see codec.go): written by EncodeEvent, read
// by DecodeEvent, which scans the form it writes without reflection.

// EncodeEvent returns the stored form of e: what json.Marshal of its
// eventRecord writes, byte for byte (TestEncodeEventIsJSON), without
// reflection, since every move encodes its events.
func EncodeEvent(e *Event) ([]byte, error) {
	b := make([]byte, 0, 384)
	b = append(b, `{"v":`...)
	b = strconv.AppendInt(b, RecordVersion, 10)
	b = appendField(b, "game", e.GameID)
	b = append(b, `,"seq":`...)
	b = strconv.AppendInt(b, e.Sequence, 10)
	var err error
	if b, err = appendTime(b, "time", e.Time); err != nil {
		return nil, err
	}
	b = append(b, `,"kind":`...)
	b = strconv.AppendUint(b, uint64(e.Kind), 10)
	b = append(b, `,"ply":`...)
	b = strconv.AppendInt(b, int64(e.Ply), 10)
	b = append(b, `,"position":"`...)
	b = e.Position.AppendText(b) // letters, digits, ':' and ',': nothing to escape
	b = append(b, '"')
	switch e.Kind {
	case EventCreated:
		b = append(b, `,"variant":`...)
		b = appendVariant(b, &e.Variant)
	case EventMovePlayed:
		b = append(b, `,"move":`...)
		b = appendMove(b, e.Move)
	case EventDrawOffered, EventDrawDeclined:
		if side := e.Side.String(); side != "" {
			b = appendField(b, "side", side)
		}
	}
	if e.ByMove {
		b = append(b, `,"by_move":true`...)
	}
	if e.Kind == EventEnded {
		b = append(b, `,"outcome":{"result":`...)
		b = strconv.AppendUint(b, uint64(e.Outcome.Result), 10)
		b = append(b, `,"reason":`...)
		b = strconv.AppendUint(b, uint64(e.Outcome.Reason), 10)
		b = append(b, '}')
	}
	if e.Clock != nil {
		b = append(b, `,"clock":`...)
		if b, err = appendClock(b, e.Clock, false); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// appendVariant appends v as json.Marshal writes its variantRecord.
func appendVariant(b []byte, variant *engine.Variant) []byte {
	v := encodeVariant(variant)
	b = append(b, `{"setup":`...)
	b = appendString(b, v.Setup)
	if v.Start != "" {
		b = appendField(b, "start", v.Start)
	}
	b = appendField(b, "win_condition", v.WinCondition)
	b = appendField(b, "first_player", v.FirstPlayer)
	b = append(b, `,"repetition_draw":`...)
	b = strconv.AppendBool(b, v.RepetitionDraw)
	b = append(b, `,"no_progress_limit":`...)
	b = strconv.AppendInt(b, int64(v.NoProgressLimit), 10)
	return append(b, '}')
}

// appendMove appends m as json.Marshal writes its moveRecord.
func appendMove(b []byte, m PlayedMove) []byte {
	r := encodeMove(m)
	b = append(b, `{"notation":`...)
	b = appendString(b, r.Notation)
	b = appendField(b, "side", r.Side)
	b = appendField(b, "rank", r.Rank)
	b = appendField(b, "from", r.From)
	b = append(b, `,"landings":`...)
	if r.Landings == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, l := range r.Landings {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, l)
		}
		b = append(b, ']')
	}
	if r.Promoted {
		b = append(b, `,"promoted":true`...)
	}
	if len(r.Captured) > 0 {
		b = append(b, `,"captured":[`...)
		for i, c := range r.Captured {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"square":`...)
			b = appendString(b, c.Square)
			b = appendField(b, "side", c.Side)
			b = appendField(b, "rank", c.Rank)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// DecodeEvent reads an event written by EncodeEvent. A record in exactly
// the form EncodeEvent writes is read without reflection (scanEvent);
// any other is read by encoding/json, so both answer alike
// (TestDecodeEventIsJSON): a verifying start decodes every event of every
// game, and encoding/json was nearly all of that.
func DecodeEvent(b []byte) (Event, error) {
	var r eventRecord
	if !scanEvent(b, &r) {
		r = eventRecord{}
		if err := json.Unmarshal(b, &r); err != nil {
			return Event{}, fmt.Errorf("event record: %w", err)
		}
	}
	return eventFromRecord(&r)
}

// eventFromRecord checks a decoded event record and makes it an Event.
func eventFromRecord(r *eventRecord) (Event, error) {
	if r.V != 1 && r.V != RecordVersion {
		return Event{}, fmt.Errorf("event record %s/%d: unknown record version %d", r.GameID, r.Sequence, r.V)
	}
	e := Event{GameID: r.GameID, Sequence: r.Sequence, Time: r.Time, Kind: r.Kind, Ply: r.Ply, ByMove: r.ByMove}
	var err error
	if e.Position, err = engine.ParsePosition(r.Position); err != nil {
		return Event{}, fmt.Errorf("event record %s/%d: %w", r.GameID, r.Sequence, err)
	}
	switch {
	case r.Kind == EventCreated && r.Variant != nil:
		e.Variant, err = decodeVariant(r.Variant)
	case r.Kind == EventMovePlayed && r.Move != nil:
		e.Move, err = decodeMove(r.Move)
	case r.Kind == EventDrawOffered || r.Kind == EventDrawDeclined:
		e.Side, err = engine.ParseSide(r.Side)
	case r.Kind == EventEnded && r.Outcome != nil:
		e.Outcome = engine.Outcome{Result: engine.Result(r.Outcome.Result), Reason: engine.Reason(r.Outcome.Reason)}
	default:
		err = fmt.Errorf("kind %v without its details", r.Kind)
	}
	if err == nil && r.Clock != nil {
		e.Clock, err = decodeClock(r.Clock, r.Time)
	}
	if err != nil {
		return Event{}, fmt.Errorf("event record %s/%d: %w", r.GameID, r.Sequence, err)
	}
	return e, nil
}

// scanEvent reads into r an event record in exactly the form
// json.Marshal writes it (EncodeEvent): the fields in their order, no
// spaces, strings of printable ASCII without escapes, integers in range,
// the time as time.Time's UnmarshalJSON reads it. It reports false for
// anything else, a valid record or not, leaving r partly filled: the
// caller then reads it with encoding/json. What it accepts, encoding/json
// reads as the same record.
func scanEvent(b []byte, r *eventRecord) bool {
	// One copy of the record as text: its strings are slices of it, and
	// only the game's id, which the event keeps, is copied out of it.
	s := recordScanner{src: b, text: string(b), ok: true}
	s.lit(`{"v":`)
	r.V = int(s.int(math.MinInt, math.MaxInt))
	s.lit(`,"game":`)
	r.GameID = strings.Clone(s.str())
	s.lit(`,"seq":`)
	r.Sequence = s.int(math.MinInt64, math.MaxInt64)
	s.lit(`,"time":`)
	s.time(&r.Time)
	s.lit(`,"kind":`)
	r.Kind = EventKind(s.int(0, math.MaxUint8))
	s.lit(`,"ply":`)
	r.Ply = int(s.int(math.MinInt, math.MaxInt))
	s.lit(`,"position":`)
	r.Position = s.str()
	if s.has(`,"variant":`) {
		r.Variant = &variantRecord{}
		s.variant(r.Variant)
	}
	if s.has(`,"move":`) {
		r.Move = &moveRecord{}
		s.move(r.Move)
	}
	if s.has(`,"side":`) {
		r.Side = s.str()
	}
	if s.has(`,"by_move":`) {
		r.ByMove = s.bool()
	}
	if s.has(`,"outcome":`) {
		r.Outcome = &outcomeRecord{}
		s.lit(`{"result":`)
		r.Outcome.Result = uint8(s.int(0, math.MaxUint8))
		s.lit(`,"reason":`)
		r.Outcome.Reason = uint8(s.int(0, math.MaxUint8))
		s.lit(`}`)
	}
	if s.has(`,"clock":`) {
		r.Clock = &clockRecord{}
		s.lit(`{"remaining_ns":[`)
		r.Clock.RemainingNS[0] = s.int(math.MinInt64, math.MaxInt64)
		s.lit(`,`)
		r.Clock.RemainingNS[1] = s.int(math.MinInt64, math.MaxInt64)
		s.lit(`]`)
		if s.has(`,"deadline":`) {
			r.Clock.Deadline = new(time.Time)
			s.time(r.Clock.Deadline)
		}
		if s.has(`,"running":`) {
			r.Clock.Running = s.bool()
		}
		s.lit(`}`)
	}
	s.lit(`}`)
	return s.ok && s.i == len(s.text)
}

// recordScanner reads the JSON json.Marshal writes, a piece at a time;
// the first piece that is not as expected clears ok, and every later call
// does nothing.
type recordScanner struct {
	src  []byte
	text string // src as text
	i    int    // what is read: text[:i]
	ok   bool
}

// has reads l if the input goes on with it.
func (s *recordScanner) has(l string) bool {
	if s.ok && strings.HasPrefix(s.text[s.i:], l) {
		s.i += len(l)
		return true
	}
	return false
}

// lit reads l, which must come next.
func (s *recordScanner) lit(l string) {
	if !s.has(l) {
		s.ok = false
	}
}

// quoted reads a string of printable ASCII other than '"' and '\\' and
// returns where it is, quotes included: text[from:to].
func (s *recordScanner) quoted() (from, to int) {
	if !s.ok || s.i >= len(s.text) || s.text[s.i] != '"' {
		s.ok = false
		return 0, 0
	}
	for j := s.i + 1; j < len(s.text); j++ {
		switch c := s.text[j]; {
		case c == '"':
			from, s.i = s.i, j+1
			return from, s.i
		case c < 0x20 || c >= 0x7f || c == '\\':
			s.ok = false
			return 0, 0
		}
	}
	s.ok = false
	return 0, 0
}

// str reads a string as quoted does and returns its text, a slice of the
// record's.
func (s *recordScanner) str() string {
	if from, to := s.quoted(); s.ok {
		return s.text[from+1 : to-1]
	}
	return ""
}

// int reads an integer from lo to hi, written as strconv writes it (no
// leading zeros, no "-0", at most 18 digits: no overflow).
func (s *recordScanner) int(lo, hi int64) int64 {
	if !s.ok {
		return 0
	}
	t := s.text[s.i:]
	i, neg := 0, len(t) > 0 && t[0] == '-'
	if neg {
		i++
	}
	start := i
	var n int64
	for ; i < len(t) && t[i] >= '0' && t[i] <= '9'; i++ {
		n = n*10 + int64(t[i]-'0')
	}
	if d := i - start; d == 0 || d > 18 || (t[start] == '0' && (d > 1 || neg)) {
		s.ok = false
		return 0
	}
	if neg {
		n = -n
	}
	if n < lo || n > hi {
		s.ok = false
		return 0
	}
	s.i += i
	return n
}

// bool reads true or false.
func (s *recordScanner) bool() bool {
	switch {
	case s.has("true"):
		return true
	case !s.has("false"):
		s.ok = false
	}
	return false
}

// time reads a quoted time as time.Time's UnmarshalJSON reads it.
func (s *recordScanner) time(t *time.Time) {
	if from, to := s.quoted(); s.ok && t.UnmarshalJSON(s.src[from:to]) != nil {
		s.ok = false
	}
}

// variant reads a variantRecord.
func (s *recordScanner) variant(v *variantRecord) {
	s.lit(`{"setup":`)
	v.Setup = s.str()
	if s.has(`,"start":`) {
		v.Start = s.str()
	}
	s.lit(`,"win_condition":`)
	v.WinCondition = s.str()
	s.lit(`,"first_player":`)
	v.FirstPlayer = s.str()
	s.lit(`,"repetition_draw":`)
	v.RepetitionDraw = s.bool()
	s.lit(`,"no_progress_limit":`)
	v.NoProgressLimit = int(s.int(math.MinInt, math.MaxInt))
	s.lit(`}`)
}

// move reads a moveRecord.
func (s *recordScanner) move(m *moveRecord) {
	s.lit(`{"notation":`)
	m.Notation = s.str()
	s.lit(`,"side":`)
	m.Side = s.str()
	s.lit(`,"rank":`)
	m.Rank = s.str()
	s.lit(`,"from":`)
	m.From = s.str()
	s.lit(`,"landings":[`)
	m.Landings = []string{}
	for first := true; s.ok && !s.has(`]`); first = false {
		if !first {
			s.lit(`,`)
		}
		m.Landings = append(m.Landings, s.str())
	}
	if s.has(`,"promoted":`) {
		m.Promoted = s.bool()
	}
	if s.has(`,"captured":[`) {
		m.Captured = []pieceRecord{}
		for first := true; s.ok && !s.has(`]`); first = false {
			if !first {
				s.lit(`,`)
			}
			var c pieceRecord
			s.lit(`{"square":`)
			c.Square = s.str()
			s.lit(`,"side":`)
			c.Side = s.str()
			s.lit(`,"rank":`)
			c.Rank = s.str()
			s.lit(`}`)
			m.Captured = append(m.Captured, c)
		}
	}
	s.lit(`}`)
}
