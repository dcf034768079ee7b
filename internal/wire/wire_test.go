package wire

import (
	"bytes"
	"testing"

	"google.golang.org/grpc/encoding"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/google/go-cmp/cmp"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
)

// listResponse is a list-legal-moves answer for the standard start (Red's
// nine steps there, worked out from RULES.md, Sides and setup and Moves),
// with the position in both forms.
func listResponse() *damonev1.ListLegalMovesResponse {
	red, black := damonev1.Side_SIDE_RED, damonev1.Side_SIDE_BLACK
	resp := &damonev1.ListLegalMovesResponse{Position: &damonev1.Position{
		SideToMove: red,
		Text:       "R:RMh1,Df1,Dh3,Pd1,Pe2,Pf3,Pg4,Ph5:BMa8,Da6,Dc8,Pa4,Pb5,Pc6,Pd7,Pe8:0",
	}}
	for _, pc := range []struct {
		sq   string
		side damonev1.Side
		rank damonev1.Rank
	}{
		{"h1", red, damonev1.Rank_RANK_DAMONE}, {"f1", red, damonev1.Rank_RANK_DAMA}, {"h3", red, damonev1.Rank_RANK_DAMA},
		{"d1", red, damonev1.Rank_RANK_PEDINE}, {"e2", red, damonev1.Rank_RANK_PEDINE}, {"f3", red, damonev1.Rank_RANK_PEDINE},
		{"g4", red, damonev1.Rank_RANK_PEDINE}, {"h5", red, damonev1.Rank_RANK_PEDINE},
		{"a8", black, damonev1.Rank_RANK_DAMONE}, {"a6", black, damonev1.Rank_RANK_DAMA}, {"c8", black, damonev1.Rank_RANK_DAMA},
		{"a4", black, damonev1.Rank_RANK_PEDINE}, {"b5", black, damonev1.Rank_RANK_PEDINE}, {"c6", black, damonev1.Rank_RANK_PEDINE},
		{"d7", black, damonev1.Rank_RANK_PEDINE}, {"e8", black, damonev1.Rank_RANK_PEDINE},
	} {
		resp.Position.Pieces = append(resp.Position.Pieces, &damonev1.Piece{Square: pc.sq, Side: pc.side, Rank: pc.rank})
	}
	for _, m := range []struct {
		from, to string
		rank     damonev1.Rank
	}{
		{"d1", "c2", damonev1.Rank_RANK_PEDINE}, {"e2", "d3", damonev1.Rank_RANK_PEDINE}, {"f3", "e4", damonev1.Rank_RANK_PEDINE},
		{"g4", "f5", damonev1.Rank_RANK_PEDINE}, {"h5", "g6", damonev1.Rank_RANK_PEDINE}, {"f1", "g2", damonev1.Rank_RANK_DAMA},
		{"h3", "g2", damonev1.Rank_RANK_DAMA}, {"h1", "g2", damonev1.Rank_RANK_DAMONE}, {"d1", "e2", damonev1.Rank_RANK_PEDINE},
	} {
		resp.Moves = append(resp.Moves, &damonev1.Move{
			Notation: m.from + "-" + m.to, Side: red, Rank: m.rank, Origin: m.from, LandingSquares: []string{m.to},
		})
	}
	resp.Moves[0].CapturedPieces = []*damonev1.Piece{{Square: "b3", Side: black, Rank: damonev1.Rank_RANK_PEDINE}}
	return resp
}

func TestRegisteredAsProto(t *testing.T) {
	if _, ok := encoding.GetCodecV2("proto").(Codec); !ok {
		t.Fatalf("the codec registered as proto is %T, want wire.Codec", encoding.GetCodecV2("proto"))
	}
}

// Generated and reflective encodings give the same bytes, and each side
// decodes the other's: the codec changes CPU, never the wire.
func TestSameBytesAsTheProtobufRuntime(t *testing.T) {
	msgs := []proto.Message{
		listResponse(),
		&damonev1.GameEvent{Game: "games/g1", Sequence: 7, Position: listResponse().Position},
		&healthpb.HealthCheckResponse{Status: healthpb.HealthCheckResponse_SERVING}, // no generated methods
	}
	for _, m := range msgs {
		want, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Codec{}.Marshal(m)
		if err != nil {
			t.Fatalf("%T: %v", m, err)
		}
		if !bytes.Equal(got.Materialize(), want) {
			t.Fatalf("%T: codec wrote %x, the protobuf runtime %x", m, got.Materialize(), want)
		}
		got.Free()
		back := m.ProtoReflect().New().Interface()
		if err := (Codec{}).Unmarshal(mem.BufferSlice{mem.SliceBuffer(want)}, back); err != nil {
			t.Fatalf("%T: %v", m, err)
		}
		if d := cmp.Diff(m, back, protocmp.Transform()); d != "" {
			t.Fatalf("%T decoded differently (-want +got):\n%s", m, d)
		}
	}
}

// A field this build does not know survives a decode and re-encode, as it
// does with the protobuf runtime (an older server must not drop what a
// newer client sends).
func TestUnknownFieldsKept(t *testing.T) {
	in, _ := proto.Marshal(listResponse().Position)
	in = append(in, 0xa8, 0x1f, 0x05) // field 501, varint 5
	var p damonev1.Position
	if err := (Codec{}).Unmarshal(mem.BufferSlice{mem.SliceBuffer(in)}, &p); err != nil {
		t.Fatal(err)
	}
	out, err := Codec{}.Marshal(&p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(out.Materialize(), []byte{0xa8, 0x1f, 0x05}) {
		t.Fatalf("re-encoded %x lost the unknown field a81f05", out.Materialize())
	}
}

func TestNotAProtobufMessage(t *testing.T) {
	if _, err := (Codec{}).Marshal(struct{}{}); err == nil {
		t.Fatal("marshalled a struct{} without an error")
	}
	if err := (Codec{}).Unmarshal(mem.BufferSlice{mem.SliceBuffer{}}, &struct{}{}); err == nil {
		t.Fatal("unmarshalled into a struct{} without an error")
	}
}

func BenchmarkMarshal(b *testing.B) {
	m := listResponse()
	b.Run("codec=wire", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			d, _ := Codec{}.Marshal(m)
			d.Free()
		}
	})
	b.Run("codec=protobuf-runtime", func(b *testing.B) {
		c := grpcCodec()
		b.ReportAllocs()
		for b.Loop() {
			d, _ := c.Marshal(m)
			d.Free()
		}
	})
}

func BenchmarkUnmarshal(b *testing.B) {
	data, _ := proto.Marshal(listResponse())
	in := mem.BufferSlice{mem.SliceBuffer(data)}
	b.Run("codec=wire", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var m damonev1.ListLegalMovesResponse
			_ = Codec{}.Unmarshal(in, &m)
		}
	})
	b.Run("codec=protobuf-runtime", func(b *testing.B) {
		c := grpcCodec()
		b.ReportAllocs()
		for b.Loop() {
			var m damonev1.ListLegalMovesResponse
			_ = c.Unmarshal(in, &m)
		}
	})
}

// protoCodec does what gRPC's own proto codec does, for comparison.
type protoCodec struct{}

func (protoCodec) Marshal(v any) (mem.BufferSlice, error) {
	b, err := proto.Marshal(v.(proto.Message))
	return mem.BufferSlice{mem.SliceBuffer(b)}, err
}

func (protoCodec) Unmarshal(data mem.BufferSlice, v any) error {
	buf := data.MaterializeToBuffer(mem.DefaultBufferPool())
	defer buf.Free()
	return proto.Unmarshal(buf.ReadOnlyData(), v.(proto.Message))
}

func grpcCodec() protoCodec { return protoCodec{} }
