package games

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/damone-rules/damone/internal/engine"
)

// jsonDecodeEvent is DecodeEvent reading every record with encoding/json.
func jsonDecodeEvent(b []byte) (Event, error) {
	var r eventRecord
	if err := json.Unmarshal(b, &r); err != nil {
		return Event{}, fmt.Errorf("event record: %w", err)
	}
	return eventFromRecord(&r)
}

// reflectEncodeEvent is json.Marshal of e's record: what EncodeEvent
// must write.
func reflectEncodeEvent(e *Event) ([]byte, error) {
	r := eventRecord{V: RecordVersion, GameID: e.GameID, Sequence: e.Sequence, Time: e.Time, Kind: e.Kind,
		Ply: e.Ply, Position: e.Position.String(), ByMove: e.ByMove}
	switch e.Kind {
	case EventCreated:
		v := encodeVariant(&e.Variant)
		r.Variant = &v
	case EventMovePlayed:
		m := encodeMove(e.Move)
		r.Move = &m
	case EventDrawOffered, EventDrawDeclined:
		r.Side = e.Side.String()
	case EventEnded:
		r.Outcome = &outcomeRecord{uint8(e.Outcome.Result), uint8(e.Outcome.Reason)}
	}
	r.Clock = encodeClock(e.Clock, false)
	return json.Marshal(r)
}

// TestEncodeEventIsJSON: EncodeEvent writes what json.Marshal of the
// event's record does, for events of every kind and part (codecEvents
// checks each).
func TestEncodeEventIsJSON(t *testing.T) { codecEvents(t) }

// codecEvents are events of every kind and every optional part, as
// EncodeEvent writes them, and whether scanEvent reads them itself (it
// leaves strings that need escaping, or are not ASCII, to encoding/json).
func codecEvents(t testing.TB) []struct {
	name    string
	b       []byte
	scanned bool
} {
	v := engine.DefaultVariant()
	start, err := v.InitialPosition()
	if err != nil {
		t.Fatal(err)
	}
	custom := v
	custom.Setup, custom.WinCondition, custom.RepetitionDraw, custom.NoProgressLimit = engine.SetupCustom, engine.CaptureAllDamones, false, 0
	if custom.Start, err = engine.ParsePosition("B:RDh1,Pe2:BMa8,Pd7:12"); err != nil {
		t.Fatal(err)
	}
	// A capture of two pieces, then a promotion (see the engine's tests:
	// Pd1 takes c2 and c4, a step of a Pedine to its last rank).
	capPos, err := engine.ParsePosition("R:RPd1:BPc2,Pc4:0")
	if err != nil {
		t.Fatal(err)
	}
	capture, err := capPos.ParseMove("d1xb3xd5")
	if err != nil {
		t.Fatal(err)
	}
	promoPos, err := engine.ParsePosition("R:RPd7:BMb1:0")
	if err != nil {
		t.Fatal(err)
	}
	promo, err := promoPos.ParseMove("d7-c8")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := promo.Promotion(); !ok {
		t.Fatalf("%s is not a promotion", promo)
	}
	step, err := start.ParseMove("e2-d3")
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 30, 14, 45, 1, 123_456_789, time.UTC)
	id := "0194d3a2-7c1e-7b3a-9f1e-2a3b4c5d6e7f"
	events := []struct {
		name    string
		e       Event
		scanned bool
	}{
		{"created", Event{GameID: id, Sequence: 1, Time: at, Kind: EventCreated, Position: start, Variant: v}, true},
		{"created, custom", Event{GameID: id, Sequence: 1, Time: at, Kind: EventCreated, Position: custom.Start, Variant: custom}, true},
		{"step", Event{GameID: id, Sequence: 2, Time: at, Kind: EventMovePlayed, Ply: 1, Position: start.After(&step),
			Move: PlayedMove{Move: step, Side: engine.Red}}, true},
		{"capture", Event{GameID: id, Sequence: 7, Time: at, Kind: EventMovePlayed, Ply: 5, Position: capPos.After(&capture),
			Move: PlayedMove{Move: capture, Side: engine.Red, Captured: capPos.CapturedPieces(&capture)}}, true},
		{"promotion", Event{GameID: id, Sequence: 9, Time: at, Kind: EventMovePlayed, Ply: 8, Position: promoPos.After(&promo),
			Move: PlayedMove{Move: promo, Side: engine.Red}}, true},
		{"draw offered", Event{GameID: id, Sequence: 3, Time: at, Kind: EventDrawOffered, Ply: 1, Position: start, Side: engine.Black}, true},
		{"draw declined", Event{GameID: id, Sequence: 4, Time: at, Kind: EventDrawDeclined, Ply: 1, Position: start, Side: engine.Red}, true},
		{"draw declined by a move", Event{GameID: id, Sequence: 4, Time: at, Kind: EventDrawDeclined, Ply: 2, Position: start, Side: engine.Red, ByMove: true}, true},
		{"ended", Event{GameID: id, Sequence: 120, Time: at, Kind: EventEnded, Ply: 117, Position: start,
			Outcome: engine.Outcome{Result: engine.Draw, Reason: engine.Repetition}}, true},
		{"zero time", Event{GameID: id, Sequence: 1, Kind: EventCreated, Position: start, Variant: v}, true},
		{"zone", Event{GameID: id, Sequence: 1, Time: at.In(time.FixedZone("x", -5*3600-1800)), Kind: EventCreated, Position: start, Variant: v}, true},
		{"clock running", Event{GameID: id, Sequence: 5, Time: at, Kind: EventMovePlayed, Ply: 1, Position: start.After(&step),
			Move:  PlayedMove{Move: step, Side: engine.Red},
			Clock: &Clock{Remaining: [2]time.Duration{61 * time.Second, 3 * time.Millisecond}, Since: at, Deadline: at.Add(3 * time.Millisecond), Running: true}}, true},
		{"clock, first move", Event{GameID: id, Sequence: 1, Time: at, Kind: EventCreated, Position: start, Variant: v,
			Clock: &Clock{Remaining: [2]time.Duration{time.Minute, time.Minute}, Since: at, Deadline: at.Add(time.Minute)}}, true},
		{"clock stopped", Event{GameID: id, Sequence: 9, Time: at, Kind: EventEnded, Ply: 7, Position: start,
			Outcome: engine.Outcome{Result: engine.RedWins, Reason: engine.Timeout}, Clock: &Clock{Since: at, Remaining: [2]time.Duration{5, 0}}}, true},
		{"escaped id", Event{GameID: "a\"b\\c<d>&\x01", Sequence: 2, Time: at, Kind: EventDrawOffered, Position: start, Side: engine.Red}, false},
		{"non-ASCII id", Event{GameID: "partita-é", Sequence: 2, Time: at, Kind: EventDrawOffered, Position: start, Side: engine.Red}, false},
	}
	var out []struct {
		name    string
		b       []byte
		scanned bool
	}
	for _, c := range events {
		b, err := EncodeEvent(&c.e)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if want, err := reflectEncodeEvent(&c.e); err != nil || string(b) != string(want) {
			t.Errorf("%s: EncodeEvent wrote\n %s\nwant (json.Marshal of its record, %v)\n %s", c.name, b, err, want)
		}
		out = append(out, struct {
			name    string
			b       []byte
			scanned bool
		}{c.name, b, c.scanned})
	}
	// A version 1 record, which is still read.
	v1 := bytes.Replace(out[2].b, []byte(`{"v":2,`), []byte(`{"v":1,`), 1)
	return append(out, struct {
		name    string
		b       []byte
		scanned bool
	}{"version 1", v1, true})
}

// decodeAgrees checks that DecodeEvent reads b as encoding/json does: the
// same record when scanEvent reads it, the same event or the same error.
// It reports whether scanEvent read it.
func decodeAgrees(t *testing.T, name string, b []byte) bool {
	t.Helper()
	var scanned, viaJSON eventRecord
	ok := scanEvent(b, &scanned)
	jerr := json.Unmarshal(b, &viaJSON)
	if ok && (jerr != nil || !reflect.DeepEqual(scanned, viaJSON)) {
		t.Errorf("%s: scanEvent read %q as %+v; encoding/json: %+v, %v", name, b, scanned, viaJSON, jerr)
	}
	got, err := DecodeEvent(b)
	want, werr := jsonDecodeEvent(b)
	if fmt.Sprint(err) != fmt.Sprint(werr) || !reflect.DeepEqual(got, want) {
		t.Errorf("%s: DecodeEvent(%q) = %+v, %v; encoding/json: %+v, %v", name, b, got, err, want, werr)
	}
	return ok
}

// DecodeEvent reads what EncodeEvent writes without encoding/json, as
// encoding/json reads it, for every kind of event and every optional
// part; and any other input, each record cut short, with a byte left out,
// a byte changed or a space put in, as encoding/json does: the same event
// or the same error.
func TestDecodeEventIsJSON(t *testing.T) {
	var mutants, scannedMutants int
	for _, c := range codecEvents(t) {
		if got := decodeAgrees(t, c.name, c.b); got != c.scanned {
			t.Errorf("%s: scanEvent read %s: %v, want %v", c.name, c.b, got, c.scanned)
		}
		if _, err := DecodeEvent(c.b); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
		if !c.scanned {
			continue
		}
		var variants [][]byte
		for i := range c.b {
			variants = append(variants, c.b[:i])
			variants = append(variants, append(bytes.Clone(c.b[:i]), c.b[i+1:]...))
			variants = append(variants, append(append(bytes.Clone(c.b[:i]), ' '), c.b[i:]...))
			for _, x := range []byte{'"', '\\', '0', '1', '-', 'x', '}', ',', ']', 0x00, 0xff} {
				if c.b[i] != x {
					m := bytes.Clone(c.b)
					m[i] = x
					variants = append(variants, m)
				}
			}
		}
		variants = append(variants, append(bytes.Clone(c.b), ' '), append(bytes.Clone(c.b), '}'), nil)
		for _, m := range variants {
			mutants++
			if decodeAgrees(t, c.name+" changed", m) {
				scannedMutants++
			}
		}
	}
	// Some changes leave a record of the same form (another digit, another
	// letter in a string): those are read without encoding/json too.
	if scannedMutants == 0 {
		t.Error("scanEvent read none of the changed records")
	}
	t.Logf("%d changed records, %d of them read by scanEvent", mutants, scannedMutants)
}

// Some inputs that are valid JSON, and decode, but are not in the form
// EncodeEvent writes: encoding/json reads them.
func TestDecodeEventOtherForms(t *testing.T) {
	base := codecEvents(t)[5].b // draw offered
	for name, b := range map[string][]byte{
		"spaces":            bytes.ReplaceAll(base, []byte(`,"`), []byte(`, "`)),
		"fields reordered":  bytes.Replace(bytes.Replace(base, []byte(`{"v":2,`), []byte(`{`), 1), []byte(`"side":"black"`), []byte(`"side":"black","v":2`), 1),
		"unknown field":     bytes.Replace(base, []byte(`{"v":2,`), []byte(`{"v":2,"extra":[1,{"a":null}],`), 1),
		"key case":          bytes.Replace(base, []byte(`"seq"`), []byte(`"SEQ"`), 1),
		"escaped letter":    bytes.Replace(base, []byte(`"side":"black"`), []byte(`"side":"bl\u0061ck"`), 1),
		"number with a dot": bytes.Replace(base, []byte(`"kind":3`), []byte(`"kind":3.0`), 1),
		"exponent":          bytes.Replace(base, []byte(`"kind":3`), []byte(`"kind":3e0`), 1),
		"kind out of range": bytes.Replace(base, []byte(`"kind":3`), []byte(`"kind":259`), 1),
		"negative kind":     bytes.Replace(base, []byte(`"kind":3`), []byte(`"kind":-3`), 1),
		"leading zero":      bytes.Replace(base, []byte(`"kind":3`), []byte(`"kind":03`), 1),
		"huge sequence":     bytes.Replace(base, []byte(`"seq":3`), []byte(`"seq":99999999999999999999`), 1),
		"minus zero":        bytes.Replace(base, []byte(`"ply":1`), []byte(`"ply":-0`), 1),
		"null side":         bytes.Replace(base, []byte(`"side":"black"`), []byte(`"side":null`), 1),
		"bad time":          bytes.Replace(base, []byte(`"time":"2026-11-30T14:45:01.123456789Z"`), []byte(`"time":"2026-11-30 14:45:01Z"`), 1),
		"time as a number":  bytes.Replace(base, []byte(`"time":"2026-11-30T14:45:01.123456789Z"`), []byte(`"time":0`), 1),
		"trailing data":     append(bytes.Clone(base), `{}`...),
		"an array":          []byte(`[` + string(base) + `]`),
	} {
		if bytes.Equal(b, base) {
			t.Fatalf("%s: the change did not apply to %s", name, base)
		}
		if decodeAgrees(t, name, b) {
			t.Errorf("%s: scanEvent read %s", name, b)
		}
	}
}

// Fuzzing goes further than TestDecodeEventIsJSON's changes:
// go test ./internal/games -run '^$' -fuzz FuzzDecodeEvent
func FuzzDecodeEvent(f *testing.F) {
	for _, c := range codecEvents(f) {
		f.Add(c.b)
	}
	f.Fuzz(func(t *testing.T, b []byte) { decodeAgrees(t, "fuzzed", b) })
}

// BenchmarkDecodeEvent reads a step's and a capture's event, and the
// same with encoding/json as DecodeEvent did before scanEvent.
func BenchmarkDecodeEvent(b *testing.B) {
	for _, c := range codecEvents(b)[2:4] {
		for name, decode := range map[string]func([]byte) (Event, error){"": DecodeEvent, ", encoding/json": jsonDecodeEvent} {
			b.Run(c.name+name, func(b *testing.B) {
				for b.Loop() {
					if _, err := decode(c.b); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkEncodeEvent is EncodeEvent of a step and a capture, beside
// json.Marshal of the same records.
func BenchmarkEncodeEvent(b *testing.B) {
	for _, c := range codecEvents(b)[2:4] {
		e, err := DecodeEvent(c.b)
		if err != nil {
			b.Fatal(err)
		}
		for name, encode := range map[string]func(*Event) ([]byte, error){"": EncodeEvent, ", encoding/json": reflectEncodeEvent} {
			b.Run(c.name+name, func(b *testing.B) {
				for b.Loop() {
					if _, err := encode(&e); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
