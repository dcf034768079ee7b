package main

import (
	"context"
	"fmt"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
)

// TestUndecodableRequests: bytes that are not the method's request in
// protobuf binary form are the client's fault: INVALID_ARGUMENT with the
// error model's ErrorInfo (INVALID_REQUEST) and BadRequest, never INTERNAL
// (docs/api.md, Error model). Unary calls and stream messages alike.
func TestUndecodableRequests(t *testing.T) {
	r := startReplica(t)
	bad := map[string][]byte{
		// A varint that never ends within ten bytes.
		"truncated varint": {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0f},
		// Field 1 (position, a message) sent with wire type 0 (varint).
		"wrong wire type": {0x08, 0x01},
		// Field 1 as a length-delimited value of 100 bytes with 2 present.
		"length past the end": {0x0a, 0x64, 0x01, 0x02},
	}
	check := func(what string, err error) {
		t.Helper()
		st := status.Convert(err)
		var reason, field string
		for _, d := range st.Details() {
			switch d := d.(type) {
			case *errdetails.ErrorInfo:
				reason = d.GetReason()
			case *errdetails.BadRequest:
				if len(d.GetFieldViolations()) > 0 {
					field = d.GetFieldViolations()[0].GetField()
				}
			}
		}
		if st.Code() != codes.InvalidArgument || reason != "INVALID_REQUEST" || field != "body" {
			t.Errorf("%s: %v %q (reason %q, field %q), want INVALID_ARGUMENT, INVALID_REQUEST, field body", what, st.Code(), st.Message(), reason, field)
		}
	}
	for name, b := range bad {
		var out []byte
		err := r.conn.Invoke(context.Background(), "/damone.v1.RulesService/ListLegalMoves", &b, &out, grpc.ForceCodecV2(gcRawCodec{}))
		check("ListLegalMoves, "+name, err)

		desc := &grpc.StreamDesc{StreamName: "ValidateGames", ServerStreams: true, ClientStreams: true}
		stream, err := r.conn.NewStream(context.Background(), desc, "/damone.v1.RulesService/ValidateGames", grpc.ForceCodecV2(gcRawCodec{}))
		if err != nil {
			t.Fatal(err)
		}
		if err := stream.SendMsg(&b); err != nil {
			t.Fatal(err)
		}
		stream.CloseSend()
		err = stream.RecvMsg(&out)
		check("ValidateGames, "+name, err)
	}
	// The service goes on: a good request still works.
	if _, err := r.rules.ListLegalMoves(context.Background(), &damonev1.ListLegalMovesRequest{
		Position: &damonev1.Position{Text: "R:RPc4:BPb5,Pb7:0"}}); err != nil {
		t.Fatal(fmt.Errorf("after the bad requests: %w", err))
	}
}
