package server

import (
	"bytes"
	"context"
	"testing"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
)

func gatewayJSONPb() runtime.JSONPb {
	return runtime.JSONPb{MarshalOptions: protojson.MarshalOptions{UseProtoNames: true}}
}

func startListResponse(tb testing.TB) *damonev1.ListLegalMovesResponse {
	resp, err := NewRulesServer(8, DefaultMaxGamePlies, noObserver{}).ListLegalMoves(context.Background(), &damonev1.ListLegalMovesRequest{
		Position: &damonev1.Position{Text: "R:RMh1,Df1,Dh3,Pd1,Pe2,Pf3,Pg4,Ph5:BMa8,Da6,Dc8,Pa4,Pb5,Pc6,Pd7,Pe8:0"}})
	if err != nil {
		tb.Fatal(err)
	}
	return resp
}

// The gateway's marshaler writes exactly what grpc-gateway's JSONPb
// writes, for messages and for the non-message values it also handles.
func TestGatewayJSONSameAsJSONPb(t *testing.T) {
	ref := gatewayJSONPb()
	ours := &jsonMarshaler{gatewayJSONPb()}
	for _, v := range []any{startListResponse(t), &damonev1.Position{}, []string{"a", "b"}, nil} {
		want, err1 := ref.Marshal(v)
		got, err2 := ours.Marshal(v)
		if (err1 == nil) != (err2 == nil) || !bytes.Equal(got, want) {
			t.Fatalf("%T: got %s (%v), want %s (%v)", v, got, err2, want, err1)
		}
	}
}

// BenchmarkGatewayJSON compares the gateway's marshaler with JSONPb on the
// answer to list-legal-moves at the standard start.
func BenchmarkGatewayJSON(b *testing.B) {
	resp := startListResponse(b)
	out, _ := (&jsonMarshaler{gatewayJSONPb()}).Marshal(resp)
	b.Logf("%d bytes of JSON, %d of protobuf", len(out), proto.Size(resp))
	for _, c := range []struct {
		name string
		m    runtime.Marshaler
	}{{"marshaler=JSONPb", &runtime.JSONPb{MarshalOptions: protojson.MarshalOptions{UseProtoNames: true}}}, {"marshaler=gateway", &jsonMarshaler{gatewayJSONPb()}}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.m.Marshal(resp); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
