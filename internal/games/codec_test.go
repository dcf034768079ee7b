package games

import (
	"encoding/hex"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/damone-rules/damone/internal/engine"
)

// A request record keeps, through the stored form both durable stores
// use, the state after the move its retry answers with.
func TestRequestRecordRoundTrip(t *testing.T) {
	at := time.Date(2026, 11, 29, 18, 30, 5, 120_000_000, time.UTC)
	for _, r := range []RequestRecord{
		{RequestID: "red/0b8f1c52", Move: "e2-d3", Ply: 1, Sequence: 3, Version: 3, LastEvent: 3, Time: at, HasOffer: true, DrawOffer: engine.Red},
		{RequestID: "black/é", Move: "b5xd3", Ply: 2, Sequence: 5, Version: 4, LastEvent: 6, Time: at},
	} {
		b, err := EncodeRequest(&r)
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecodeRequest(b)
		if err != nil {
			t.Fatalf("DecodeRequest(%s): %v", b, err)
		}
		if !got.Time.Equal(r.Time) {
			t.Errorf("time %v, want %v", got.Time, r.Time)
		}
		got.Time = r.Time
		if !reflect.DeepEqual(got, r) {
			t.Errorf("round trip of %s: %+v, want %+v", b, got, r)
		}
	}
	// A record written before records kept the state after the move.
	old, err := DecodeRequest([]byte(`{"request_id":"red/x","move":"e2-d3","ply":1,"seq":2}`))
	if err != nil || !reflect.DeepEqual(old, RequestRecord{RequestID: "red/x", Move: "e2-d3", Ply: 1, Sequence: 2}) {
		t.Errorf("old record: %+v, %v; want its four fields and Version 0", old, err)
	}
	if _, err := DecodeRequest([]byte(`{"request_id":"red/x","move":"e2-d3","ply":1,"seq":2,"version":2,"draw_offer":"green"}`)); err == nil {
		t.Error("a record with an unknown draw offer side decoded")
	}
}

// reflectEncodeGame is EncodeGame as json.Marshal of the record writes it.
func reflectEncodeGame(g *Game) ([]byte, error) {
	r := gameRecord{
		V: map[bool]int{false: 2, true: 3}[g.TimeControl.On()], ID: g.ID, Variant: encodeVariant(&g.Variant),
		Initial: g.Initial.String(), Position: g.Position.String(), Plies: g.Plies,
		Outcome: outcomeRecord{uint8(g.Outcome.Result), uint8(g.Outcome.Reason)},
		Version: g.Version, LastEvent: g.LastEvent, CreateTime: g.CreateTime, UpdateTime: g.UpdateTime,
		TokenHash: [2]string{hex.EncodeToString(g.TokenHash[0][:]), hex.EncodeToString(g.TokenHash[1][:])},
	}
	for i := range g.Recent {
		r.Recent = append(r.Recent, g.Recent[i].String())
	}
	if g.HasOffer {
		r.DrawOffer = g.DrawOffer.String()
	}
	if e := g.Engine; e != nil {
		r.Engine = &engineRecord{Side: e.Side.String(), MoveTimeNS: e.MoveTime.Nanoseconds(), MoveTimeMS: e.MoveTime.Milliseconds(), Depth: e.Depth}
	}
	if tc := g.TimeControl; tc.On() {
		r.TimeControl = &timeControlRecord{InitialNS: int64(tc.Initial), IncrementNS: int64(tc.Increment), PerMoveNS: int64(tc.PerMove), FirstMoveNS: int64(tc.FirstMove)}
	}
	r.Clock = encodeClock(g.Clock, true)
	return json.Marshal(r)
}

// EncodeGame writes exactly what encoding/json writes for the record, for
// games with and without each optional part, and ids that need escaping.
func TestEncodeGameIsJSON(t *testing.T) {
	v := engine.DefaultVariant()
	start, _ := v.InitialPosition()
	custom := v
	custom.Setup, custom.Start = engine.SetupCustom, mustPosition(t, "B:RDh1,Pe2:BMa8,Pd7:12")
	custom.WinCondition, custom.RepetitionDraw, custom.NoProgressLimit = engine.CaptureAllDamones, false, 0
	at := time.Date(2026, 11, 30, 14, 45, 1, 123_456_789, time.UTC)
	base := Game{ID: "0194d3a2-7c1e-7b3a-9f1e-2a3b4c5d6e7f", Variant: v, Initial: start, Position: start, Version: 1, LastEvent: 1,
		CreateTime: at, UpdateTime: at.Add(time.Second)}
	base.TokenHash[0][0], base.TokenHash[1][31] = 0xab, 0x01
	cases := map[string]func(g *Game){
		"new":            func(*Game) {},
		"recent":         func(g *Game) { g.Recent = []engine.Position{start, custom.Start}; g.Plies = 2 },
		"custom variant": func(g *Game) { g.Variant, g.Initial, g.Position = custom, custom.Start, custom.Start },
		"over, offer": func(g *Game) {
			g.Outcome = engine.Outcome{Result: engine.Draw, Reason: engine.Repetition}
			g.HasOffer, g.DrawOffer = true, engine.Black
		},
		"engine": func(g *Game) {
			g.Engine = &EngineOpponent{Side: engine.Red, MoveTime: 1500 * time.Microsecond, Depth: 9}
		},
		"engine, depth": func(g *Game) { g.Engine = &EngineOpponent{Side: engine.Black, Depth: 3} },
		"escaped id":    func(g *Game) { g.ID = "a\"b\\c<d>&é\x01" },
		"zero times":    func(g *Game) { g.CreateTime, g.UpdateTime = time.Time{}, time.Time{} },
		"zone":          func(g *Game) { g.CreateTime = at.In(time.FixedZone("x", 3600)) },
		"fischer clock": func(g *Game) {
			g.TimeControl = TimeControl{Initial: 3 * time.Minute, Increment: 2 * time.Second, FirstMove: time.Minute}
			g.Clock = &Clock{Remaining: [2]time.Duration{179_999_999_999, 1}, Since: at, Deadline: at.Add(1), Running: true}
		},
		"per-move clock, first move": func(g *Game) {
			g.TimeControl = TimeControl{PerMove: 24 * time.Hour, FirstMove: 24 * time.Hour}
			g.Clock = &Clock{Remaining: [2]time.Duration{24 * time.Hour, 24 * time.Hour}, Since: at, Deadline: at.Add(24 * time.Hour)}
		},
		"clock stopped": func(g *Game) {
			g.Outcome = engine.Outcome{Result: engine.NoResult, Reason: engine.Aborted}
			g.TimeControl = TimeControl{Initial: time.Second, FirstMove: time.Second}
			g.Clock = &Clock{Remaining: [2]time.Duration{time.Second, time.Second}, Since: at}
		},
	}
	for name, change := range cases {
		g := base
		change(&g)
		got, err := EncodeGame(&g)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want, err := reflectEncodeGame(&g)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
		back, err := DecodeGame(got)
		if err != nil && name != "escaped id" {
			t.Errorf("%s: does not decode: %v", name, err)
		}
		if err == nil && (back.TimeControl != g.TimeControl || (back.Clock == nil) != (g.Clock == nil) ||
			g.Clock != nil && (back.Clock.Remaining != g.Clock.Remaining || !back.Clock.Since.Equal(g.Clock.Since) ||
				!back.Clock.Deadline.Equal(g.Clock.Deadline) || back.Clock.Running != g.Clock.Running)) {
			t.Errorf("%s: time control %+v clock %+v back as %+v %+v", name, g.TimeControl, g.Clock, back.TimeControl, back.Clock)
		}
	}
}

// TestClockRecordVersion: a timed game's record is version 3, which a
// binary from before clocks refuses; a record whose version and time
// control disagree is damaged.
func TestClockRecordVersion(t *testing.T) {
	v := engine.DefaultVariant()
	start, _ := v.InitialPosition()
	g := &Game{ID: "g", Variant: v, Initial: start, Position: start, Version: 1, LastEvent: 1,
		TimeControl: TimeControl{Initial: time.Minute, FirstMove: time.Minute}, Clock: &Clock{Remaining: [2]time.Duration{time.Minute, time.Minute}}}
	b, err := EncodeGame(g)
	if err != nil || !strings.HasPrefix(string(b), `{"v":3,`) {
		t.Fatalf("%s, %v; want version 3", b, err)
	}
	if _, err := DecodeGame([]byte(strings.Replace(string(b), `{"v":3,`, `{"v":2,`, 1))); err == nil {
		t.Error("a version 2 record with a time control decoded")
	}
	g.TimeControl, g.Clock = TimeControl{}, nil
	b, _ = EncodeGame(g)
	if _, err := DecodeGame([]byte(strings.Replace(string(b), `{"v":2,`, `{"v":3,`, 1))); err == nil {
		t.Error("a version 3 record without a time control decoded")
	}
}

func mustPosition(t *testing.T, text string) engine.Position {
	t.Helper()
	p, err := engine.ParsePosition(text)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
