package server

import (
	"testing"

	"google.golang.org/protobuf/proto"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
)

// An encoded message goes out as the very bytes proto.Marshal made, and
// decodes to the message; other messages are marshalled as usual.
func TestCodecPassesEncodedMessagesThrough(t *testing.T) {
	c := newCodec(0)
	ev := &damonev1.GameEvent{Game: "games/g1", Sequence: 7, Position: &damonev1.Position{Text: "R:RPc4:BPb5,Pb7:0"}}
	enc, err := encode(ev)
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.Marshal(enc)
	if err != nil {
		t.Fatal(err)
	}
	if got := out.Materialize(); string(got) != string(enc.wire) {
		t.Fatalf("sent %x, want the encoded bytes %x", got, enc.wire)
	}
	var back damonev1.GameEvent
	if err := c.Unmarshal(out, &back); err != nil || !proto.Equal(&back, ev) {
		t.Fatalf("decoded %v (%v), want %v", &back, err, ev)
	}
	plain, err := c.Marshal(ev)
	if err != nil || string(plain.Materialize()) != string(enc.wire) {
		t.Fatalf("a plain message marshals to %x (%v), want %x", plain.Materialize(), err, enc.wire)
	}
	if c.Name() != "proto" {
		t.Fatalf("codec name %q, want proto (clients send content-subtype proto)", c.Name())
	}
}
