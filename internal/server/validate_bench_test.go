package server

import (
	"context"
	"io"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"google.golang.org/grpc"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/validation"
	"github.com/damone-rules/damone/internal/validation/benchgames"
)

// validateBenchRequests are the wire forms of ValidateGame requests for
// 64 random valid games of 100 plies (package benchgames, seed 1: the
// games `damone bench` sends by default).
func validateBenchRequests(b *testing.B, positions bool) [][]byte {
	games, err := benchgames.Games(1, 64, 100)
	if err != nil {
		b.Fatal(err)
	}
	out := make([][]byte, len(games))
	for i, moves := range games {
		req := &damonev1.ValidateGamesRequest{Id: "g", Game: &damonev1.ValidateGameRequest{Moves: moves, IncludePositions: positions}}
		if out[i], err = req.MarshalVT(); err != nil {
			b.Fatal(err)
		}
	}
	return out
}

// BenchmarkValidateGameHandler measures the server's own work per game
// of 100 plies, without gRPC's transport around it: decoding the request
// with the service's codec, the handler (engine and response) and
// encoding the answer. unary calls ValidateGame; stream sends the same
// games through ValidateGames on one stream, one message each way per
// game; unary-positions is unary with include_positions. ns/ply is per
// validated ply.
func BenchmarkValidateGameHandler(b *testing.B) {
	s := NewRulesServer(8, DefaultMaxGamePlies, noObserver{})
	c := newCodec(0)
	unary := func(wires [][]byte) func(b *testing.B) {
		return func(b *testing.B) {
			b.ReportAllocs()
			plies, i := 0, 0
			for b.Loop() {
				var req damonev1.ValidateGamesRequest
				if err := c.Unmarshal(mem.BufferSlice{mem.SliceBuffer(wires[i%len(wires)])}, &req); err != nil {
					b.Fatal(err)
				}
				i++
				resp, err := s.ValidateGame(context.Background(), req.Game)
				if err != nil || !resp.Valid || resp.Ply != 100 || req.Game.IncludePositions != (len(resp.Positions) == 100) {
					b.Fatalf("%v, valid %v, ply %d, %d positions", err, resp.GetValid(), resp.GetPly(), len(resp.GetPositions()))
				}
				out, err := c.Marshal(resp)
				if err != nil {
					b.Fatal(err)
				}
				out.Free()
				plies += int(resp.Ply)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(plies), "ns/ply")
		}
	}
	wires := validateBenchRequests(b, false)
	b.Run("unary", unary(wires))
	b.Run("stream", func(b *testing.B) {
		b.ReportAllocs()
		st := &benchStream{wires: wires, codec: c, b: b}
		for b.Loop() {
			st.left++
			if err := s.ValidateGames(st); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(st.plies), "ns/ply")
	})
	b.Run("unary-positions", unary(validateBenchRequests(b, true)))
}

// benchStream is a ValidateGames stream that decodes one request per
// op from wire bytes and encodes each answer, as gRPC would.
type benchStream struct {
	grpc.ServerStream
	wires [][]byte
	codec codec
	b     *testing.B
	left  int // requests still to give before io.EOF
	i     int
	plies int
}

func (st *benchStream) Recv() (*damonev1.ValidateGamesRequest, error) {
	if st.left == 0 {
		return nil, io.EOF
	}
	st.left--
	req := &damonev1.ValidateGamesRequest{}
	err := st.codec.Unmarshal(mem.BufferSlice{mem.SliceBuffer(st.wires[st.i%len(st.wires)])}, req)
	st.i++
	return req, err
}

func (st *benchStream) Send(resp *damonev1.ValidateGamesResponse) error {
	r := resp.GetResult()
	if !r.GetValid() || r.GetPly() != 100 {
		st.b.Fatalf("answer %v", resp)
	}
	st.plies += int(r.GetPly())
	out, err := st.codec.Marshal(resp)
	out.Free()
	return err
}

func (st *benchStream) Context() context.Context { return context.Background() }

// The verdict's moves are in full notation whatever form was given; the
// request's own string is reused only when it is that notation.
func TestNotationsReuseGivenText(t *testing.T) {
	s := NewRulesServer(8, DefaultMaxGamePlies, noObserver{})
	games, err := benchgames.Games(1, 1, 100)
	if err != nil {
		t.Fatal(err)
	}
	want := games[0]
	given := slices.Clone(want)
	given[1], given[2] = strings.ToUpper(given[1]), " "+given[2]
	resp, err := s.ValidateGame(context.Background(), &damonev1.ValidateGameRequest{Moves: given})
	if err != nil {
		t.Fatal(err)
	}
	if !resp.Valid || len(resp.Moves) != len(want) {
		t.Fatalf("valid %v, moves %q (%s)", resp.Valid, resp.Moves, resp.Message)
	}
	for i := range want {
		if resp.Moves[i] != want[i] {
			t.Errorf("move %d given as %q answered %q, want %q", i+1, given[i], resp.Moves[i], want[i])
		}
	}
	if unsafe.StringData(resp.Moves[0]) != unsafe.StringData(given[0]) {
		t.Error("a move given in full notation was copied, not reused")
	}
}

// positionsToProto gives, position by position, the messages
// positionToProto gives.
func TestPositionsToProtoAsOneByOne(t *testing.T) {
	games, err := benchgames.Games(3, 4, 100)
	if err != nil {
		t.Fatal(err)
	}
	var ps []engine.Position
	for _, moves := range games {
		v, err := validation.Game(engine.DefaultVariant(), moves, validation.Options{Positions: true})
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, v.Positions...)
	}
	for _, text := range []string{"R:RMe4,Me2:BMd5,Mf5,Pd3,Pf3,Dd7,Df7,Pg6:0", "B:RPc4:BPb5:65535", "R:R:B:0"} {
		p, err := engine.ParsePosition(text)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	got := positionsToProto(ps)
	for i := range ps {
		if want := positionToProto(&ps[i]); !proto.Equal(got[i], want) {
			t.Fatalf("position %d: %v, want %v", i, got[i], want)
		}
	}
}
