package server

import (
	"context"
	"os"
	"sync"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
	"github.com/damone-rules/damone/internal/egtb"
)

var (
	tb3Once sync.Once
	tb3     *egtb.Set
	tb3Err  error
)

// set3 builds the ≤ 3-piece set once for the package's tests.
func set3(tb testing.TB) *egtb.Set {
	tb3Once.Do(func() {
		dir, err := mkTempDir()
		if err != nil {
			tb3Err = err
			return
		}
		if tb3Err = egtb.Build(dir, egtb.Options{Pieces: 3, Threads: 2}); tb3Err == nil {
			tb3, tb3Err = egtb.Open(dir)
		}
	})
	if tb3Err != nil {
		tb.Fatal(tb3Err)
	}
	return tb3
}

func served(s *egtb.Set) Tables { return func() (*egtb.Set, bool) { return s, false } }

func dtcOf(p *int32) int {
	if p == nil {
		return -1
	}
	return int(*p)
}

// A Red man on c3 and a Black man on d4: the capture d3xf5 is compulsory
// (RULES.md) and takes Black's last piece, so Red wins at once (DTC 1),
// and after it Black to move has lost (DTC 0). At counter 79 of 80 the
// capture still comes in time: 0 plies to spare.
func TestProbePositionWinByCapture(t *testing.T) {
	srv := NewTablebaseServer(served(set3(t)))
	for _, tc := range []struct {
		text  string
		spare int
	}{{"R:RPd3:BPe4:0", 79}, {"R:RPd3:BPe4:79", 0}} {
		r, err := srv.ProbePosition(context.Background(), &damonev1.ProbePositionRequest{Position: tc.text})
		if err != nil {
			t.Fatal(err)
		}
		if r.Category != damonev1.TablebaseCategory_TABLEBASE_CATEGORY_WIN || dtcOf(r.Dtc) != 1 || dtcOf(r.PliesToSpare) != tc.spare {
			t.Errorf("%s: %v dtc %d spare %d, want WIN dtc 1 spare %d", tc.text, r.Category, dtcOf(r.Dtc), dtcOf(r.PliesToSpare), tc.spare)
		}
		if len(r.Moves) != 1 || r.Moves[0].Notation != "d3xf5" || !r.Moves[0].Conversion ||
			r.Moves[0].Category != damonev1.TablebaseCategory_TABLEBASE_CATEGORY_LOSS || dtcOf(r.Moves[0].Dtc) != 0 {
			t.Errorf("%s: moves %v, want only d3xf5 to a LOSS in 0", tc.text, r.Moves)
		}
	}
}

// A Red Damone in the corner h1 has one move, h1-g2 (RULES.md: a Damone
// steps one square diagonally), a quiet one: so whatever the tables say
// of the position, the move's answer is the same category seen from the
// other side, with one ply less to the conversion, and under limits 0 and
// 80 (the set's) it is exact, under 30 it may be UNKNOWN but never a
// different decided result. Its mainline ends the game.
func TestProbePositionOneQuietMove(t *testing.T) {
	srv := NewTablebaseServer(served(set3(t)))
	opposite := map[damonev1.TablebaseCategory]damonev1.TablebaseCategory{
		damonev1.TablebaseCategory_TABLEBASE_CATEGORY_WIN:  damonev1.TablebaseCategory_TABLEBASE_CATEGORY_LOSS,
		damonev1.TablebaseCategory_TABLEBASE_CATEGORY_LOSS: damonev1.TablebaseCategory_TABLEBASE_CATEGORY_WIN,
		damonev1.TablebaseCategory_TABLEBASE_CATEGORY_DRAW: damonev1.TablebaseCategory_TABLEBASE_CATEGORY_DRAW,
	}
	var at80 damonev1.TablebaseCategory
	for _, limit := range []int32{80, 0, 30} {
		r, err := srv.ProbePosition(context.Background(), &damonev1.ProbePositionRequest{Position: "R:RMh1:BMa8:0",
			Variant: &damonev1.Variant{NoProgressLimit: &limit}})
		if err != nil {
			t.Fatal(err)
		}
		if limit == 80 {
			at80 = r.Category
		}
		if len(r.Moves) != 1 || r.Moves[0].Notation != "h1-g2" || r.Moves[0].Conversion {
			t.Fatalf("limit %d: moves %v, want only the quiet h1-g2", limit, r.Moves)
		}
		m := r.Moves[0]
		switch {
		case limit == 30 && r.Category == damonev1.TablebaseCategory_TABLEBASE_CATEGORY_UNKNOWN:
		case limit == 30 && r.Category != at80:
			t.Errorf("limit 30: %v, but %v at 80 (the win fits in 30 plies or it is unknown)", r.Category, at80)
		case opposite[r.Category] != m.Category:
			t.Errorf("limit %d: %v but the only move reaches %v", limit, r.Category, m.Category)
		case r.Dtc != nil && dtcOf(m.Dtc) != dtcOf(r.Dtc)-1:
			t.Errorf("limit %d: DTC %d but the only quiet move reaches DTC %d", limit, dtcOf(r.Dtc), dtcOf(m.Dtc))
		}
	}
	ml, err := srv.GetMainline(context.Background(), &damonev1.GetMainlineRequest{Position: "R:RMh1:BMa8:0"})
	if err != nil {
		t.Fatal(err)
	}
	if at80 == damonev1.TablebaseCategory_TABLEBASE_CATEGORY_WIN {
		last := ml.Moves[len(ml.Moves)-1]
		if !last.Conversion || last.Category != damonev1.TablebaseCategory_TABLEBASE_CATEGORY_LOSS || dtcOf(last.Dtc) != 0 {
			t.Errorf("mainline of a win ends with %v, want a capture to a lost, finished position", last)
		}
	}
}

func TestGetMainlineCapture(t *testing.T) {
	srv := NewTablebaseServer(served(set3(t)))
	ml, err := srv.GetMainline(context.Background(), &damonev1.GetMainlineRequest{Position: "R:RPd3:BPe4:5"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ml.Moves) != 1 || ml.Moves[0].Notation != "d3xf5" || ml.FinalPosition != "B:RPf5:B:0" {
		t.Errorf("mainline: %v ending %q, want d3xf5 ending B:RPf5:B:0", ml.Moves, ml.FinalPosition)
	}
}

func TestProbePositionErrors(t *testing.T) {
	set := set3(t)
	loading := NewTablebaseServer(func() (*egtb.Set, bool) { return nil, true })
	none := NewTablebaseServer(nil)
	full := NewTablebaseServer(served(set))
	dam := &damonev1.Variant{WinCondition: damonev1.WinCondition_WIN_CONDITION_CAPTURE_ALL_DAMONES}
	for _, tc := range []struct {
		name   string
		srv    *TablebaseServer
		req    *damonev1.ProbePositionRequest
		code   codes.Code
		reason string
		md     map[string]string
		field  string
	}{
		{"missing position", full, &damonev1.ProbePositionRequest{}, codes.InvalidArgument, "INVALID_REQUEST", nil, "position"},
		{"bad position", full, &damonev1.ProbePositionRequest{Position: "R:RPd3"}, codes.InvalidArgument, "INVALID_REQUEST", nil, "position"},
		{"bad variant", full, &damonev1.ProbePositionRequest{Position: "R:RPd3:BPe4:0", Variant: &damonev1.Variant{WinCondition: 9}}, codes.InvalidArgument, "INVALID_REQUEST", nil, "variant.win_condition"},
		{"loading", loading, &damonev1.ProbePositionRequest{Position: "R:RPd3:BPe4:0"}, codes.Unavailable, "TABLEBASE_LOADING", nil, ""},
		{"none served", none, &damonev1.ProbePositionRequest{Position: "R:RPd3:BPe4:0"}, codes.FailedPrecondition, "NOT_IN_TABLEBASE",
			map[string]string{"pieces": "2", "max_pieces": "0", "win_condition": "WIN_CONDITION_CAPTURE_ALL_PIECES"}, ""},
		{"four pieces", full, &damonev1.ProbePositionRequest{Position: "R:RPd3,Pb1:BPe4,Pa6:0"}, codes.FailedPrecondition, "NOT_IN_TABLEBASE",
			map[string]string{"pieces": "4", "max_pieces": "3", "win_condition": "WIN_CONDITION_CAPTURE_ALL_PIECES"}, ""},
		// Capture-all-Damones tables hold only materials with a Damone on
		// each side; a position without one is over, not refused.
		{"damones four", full, &damonev1.ProbePositionRequest{Position: "R:RMd3,Pb1:BMd7,Pa6:0", Variant: dam}, codes.FailedPrecondition, "NOT_IN_TABLEBASE",
			map[string]string{"pieces": "4", "max_pieces": "3", "win_condition": "WIN_CONDITION_CAPTURE_ALL_DAMONES"}, ""},
	} {
		_, err := tc.srv.ProbePosition(context.Background(), tc.req)
		st := status.Convert(err)
		if st.Code() != tc.code {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.code)
			continue
		}
		var info *errdetails.ErrorInfo
		var br *errdetails.BadRequest
		for _, d := range st.Details() {
			switch d := d.(type) {
			case *errdetails.ErrorInfo:
				info = d
			case *errdetails.BadRequest:
				br = d
			}
		}
		if info == nil || info.Reason != tc.reason {
			t.Errorf("%s: ErrorInfo %v, want reason %s", tc.name, info, tc.reason)
			continue
		}
		for k, v := range tc.md {
			if info.Metadata[k] != v {
				t.Errorf("%s: metadata %s = %q, want %q", tc.name, k, info.Metadata[k], v)
			}
		}
		if tc.field != "" && (br == nil || len(br.FieldViolations) != 1 || br.FieldViolations[0].Field != tc.field) {
			t.Errorf("%s: BadRequest %v, want field %s", tc.name, br, tc.field)
		}
	}
}

// BenchmarkProbePositionHandler is the server's cost of one ProbePosition
// of a 3-piece position held in memory: parsing, the probe of the
// position and of every move's, and the response (no transport).
func BenchmarkProbePositionHandler(b *testing.B) {
	srv := NewTablebaseServer(served(set3(b)))
	req := &damonev1.ProbePositionRequest{Position: "R:RMd5,Pd3:BMf7:12"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := srv.ProbePosition(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}

func mkTempDir() (string, error) { return os.MkdirTemp("", "damone-tb3-") }
