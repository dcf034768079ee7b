package server

import (
	"context"
	"testing"
	"time"

	"google.golang.org/grpc"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/search"
)

// analysisStream collects what AnalyzePosition sends.
type analysisStream struct {
	grpc.ServerStream
	ctx  context.Context
	msgs []*damonev1.AnalyzePositionResponse
}

func (a *analysisStream) Context() context.Context { return a.ctx }
func (a *analysisStream) Send(m *damonev1.AnalyzePositionResponse) error {
	a.msgs = append(a.msgs, m)
	return nil
}

func analyzeAll(t *testing.T, srv *AnalysisServer, text string) []*damonev1.AnalyzePositionResponse {
	t.Helper()
	st := &analysisStream{ctx: context.Background()}
	pos, err := engine.ParsePosition(text)
	if err != nil {
		t.Fatal(err)
	}
	err = srv.AnalyzePosition(&damonev1.AnalyzePositionRequest{Position: positionToProto(&pos),
		Limit: &damonev1.AnalyzePositionRequest_Depth{Depth: 2}}, st)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.msgs) == 0 || !st.msgs[len(st.msgs)-1].Final {
		t.Fatalf("%s: no final message in %v", text, st.msgs)
	}
	return st.msgs
}

// Red man d3, Black man e4, Red to move: the capture d3xf5 is compulsory
// and takes Black's last piece (RULES.md), so Red wins in 1 ply; at
// counter 0 of 80 that leaves 79 plies to spare, at counter 79 none.
// With five pieces the ≤ 3 set holds nothing: no verdict.
func TestAnalyzePositionTablebaseVerdict(t *testing.T) {
	srv := NewAnalysisServer(search.NewPool(1), time.Minute, 2, nopAnalysisObserver{}, nil).WithTables(served(set3(t)))
	for _, tc := range []struct {
		text  string
		spare int
	}{{"R:RPd3:BPe4:0", 79}, {"R:RPd3:BPe4:79", 0}} {
		for _, m := range analyzeAll(t, srv, tc.text) {
			v := m.GetTablebase()
			if v.GetCategory() != damonev1.TablebaseCategory_TABLEBASE_CATEGORY_WIN || dtcOf(v.Dtc) != 1 || dtcOf(v.PliesToSpare) != tc.spare {
				t.Errorf("%s: verdict %v, want WIN dtc 1 spare %d", tc.text, v, tc.spare)
			}
		}
	}
	for _, m := range analyzeAll(t, srv, "R:RPb3,Pd3,Pf3:BPb7,Pd7:0") {
		if m.Tablebase != nil {
			t.Errorf("5 pieces: verdict %v, want none from a ≤ 3-piece set", m.Tablebase)
		}
	}
	none := NewAnalysisServer(search.NewPool(1), time.Minute, 2, nopAnalysisObserver{}, nil)
	for _, m := range analyzeAll(t, none, "R:RPd3:BPe4:0") {
		if m.Tablebase != nil {
			t.Errorf("no tables served: verdict %v, want none", m.Tablebase)
		}
	}
}

type nopAnalysisObserver struct{}

func (nopAnalysisObserver) AnalysisStarted()    {}
func (nopAnalysisObserver) AnalysisEnded(int64) {}
