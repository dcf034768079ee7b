package server

import (
	"context"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
)

type noObserver struct{}

func (noObserver) CountMovegen(string)                  {}
func (noObserver) SampleMovegen() bool                  { return false }
func (noObserver) ObserveMovegen(string, time.Duration) {}

// BenchmarkListLegalMovesHandler measures the handler's own work per call
// (decoding the request, the engine, building and encoding the answer),
// without gRPC around it; allocs/op is what the garbage collector sees.
func BenchmarkListLegalMovesHandler(b *testing.B) {
	s := NewRulesServer(8, DefaultMaxGamePlies, noObserver{})
	wire, _ := proto.Marshal(&damonev1.ListLegalMovesRequest{Position: &damonev1.Position{
		Text: "R:RMh1,Df1,Dh3,Pd1,Pe2,Pf3,Pg4,Ph5:BMa8,Da6,Dc8,Pa4,Pb5,Pc6,Pd7,Pe8:0"}})
	b.ReportAllocs()
	for b.Loop() {
		var req damonev1.ListLegalMovesRequest
		if err := proto.Unmarshal(wire, &req); err != nil {
			b.Fatal(err)
		}
		resp, err := s.ListLegalMoves(context.Background(), &req)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := proto.Marshal(resp); err != nil {
			b.Fatal(err)
		}
	}
}
