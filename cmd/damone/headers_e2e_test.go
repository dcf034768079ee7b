package main

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
)

// TestRequestHeadersAreBounded: request metadata (HTTP headers) beyond
// --max-header-bytes is refused over gRPC and REST, and the server goes
// on serving calls within it.
func TestRequestHeadersAreBounded(t *testing.T) {
	s := svStart(t, "--max-header-bytes", "8192")
	req := &damonev1.ListLegalMovesRequest{Position: &damonev1.Position{Text: "R:RPc4:BPb5,Pb7:0"}}
	big := strings.Repeat("x", 16<<10)
	ctx := metadata.AppendToOutgoingContext(context.Background(), "x-padding", big)
	_, err := s.rules.ListLegalMoves(ctx, req)
	if code := status.Code(err); code == codes.OK {
		t.Errorf("gRPC call with 16 KiB of metadata under a limit of 8 KiB: served")
	} else {
		t.Logf("gRPC, 16 KiB of metadata: %v", err)
	}
	small := metadata.AppendToOutgoingContext(context.Background(), "x-padding", strings.Repeat("x", 2<<10))
	if _, err := s.rules.ListLegalMoves(small, req); err != nil {
		t.Errorf("gRPC call with 2 KiB of metadata: %v", err)
	}

	for _, c := range []struct {
		size   int
		status int
	}{{16 << 10, http.StatusRequestHeaderFieldsTooLarge}, {2 << 10, http.StatusOK}} {
		r, _ := http.NewRequest("POST", s.url("/v1/rules:listLegalMoves"), strings.NewReader(`{"position": {"text": "R:RPc4:BPb5,Pb7:0"}}`))
		r.Header.Set("X-Padding", strings.Repeat("x", c.size))
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.status {
			t.Errorf("REST call with a %d-byte header: HTTP %d, want %d", c.size, resp.StatusCode, c.status)
		}
	}
}

// TestRequestBytesOverGRPC: above --max-request-bytes a gRPC request is
// LIMIT_EXCEEDED (request_bytes) with the error model's details, up to
// four times the limit; beyond that the transport cuts it with a bare
// RESOURCE_EXHAUSTED (docs/api.md, Error model).
func TestRequestBytesOverGRPC(t *testing.T) {
	s := svStart(t, "--max-request-bytes", "1024")
	game := func(bytes int) *damonev1.ValidateGameRequest {
		return &damonev1.ValidateGameRequest{Pdn: proto.String("{" + strings.Repeat("x", bytes) + "}")}
	}
	_, err := s.rules.ValidateGame(context.Background(), game(3000))
	if status.Code(err) != codes.ResourceExhausted || limitOf(err) != "request_bytes" {
		t.Errorf("a 3 KB request over a 1 KiB limit: %v, want LIMIT_EXCEEDED with limit request_bytes", err)
	}
	_, err = s.rules.ValidateGame(context.Background(), game(5000))
	if st := status.Convert(err); st.Code() != codes.ResourceExhausted || len(st.Details()) != 0 {
		t.Errorf("a 5 KB request over a 1 KiB limit (4 KiB transport cap): %v, want a bare RESOURCE_EXHAUSTED", err)
	}
}
