package games

import (
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
		if got != r {
			t.Errorf("round trip of %s: %+v, want %+v", b, got, r)
		}
	}
	// A record written before records kept the state after the move.
	old, err := DecodeRequest([]byte(`{"request_id":"red/x","move":"e2-d3","ply":1,"seq":2}`))
	if err != nil || old != (RequestRecord{RequestID: "red/x", Move: "e2-d3", Ply: 1, Sequence: 2}) {
		t.Errorf("old record: %+v, %v; want its four fields and Version 0", old, err)
	}
	if _, err := DecodeRequest([]byte(`{"request_id":"red/x","move":"e2-d3","ply":1,"seq":2,"version":2,"draw_offer":"green"}`)); err == nil {
		t.Error("a record with an unknown draw offer side decoded")
	}
}
