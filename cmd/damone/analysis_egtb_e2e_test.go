package main

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
	"github.com/damone-rules/damone/internal/egtb"
	"github.com/damone-rules/damone/internal/engine"
)

// A server with --egtb-dir: analyses of held positions carry the
// tables' verdict once they are loaded.
func TestServeTablesAnalysis(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := t.TempDir()
	if err := egtb.Build(dir, egtb.Options{Pieces: 3, Threads: 2, Win: []engine.WinCondition{engine.CaptureAllPieces}}); err != nil {
		t.Fatal(err)
	}
	r := startReplica(t, "--store", "memory", "--egtb-dir", dir)
	ctx := context.Background()
	tb := damonev1.NewTablebaseServiceClient(r.conn)
	probe := func(text string) {
		t.Helper()
		for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			resp, err := tb.ProbePosition(ctx, &damonev1.ProbePositionRequest{Position: text})
			if status.Code(err) == codes.Unavailable && time.Now().Before(deadline) {
				continue // still loading
			}
			if err != nil {
				t.Fatalf("probe %s: %v", text, err)
			}
			if resp.GetCategory() != damonev1.TablebaseCategory_TABLEBASE_CATEGORY_WIN {
				t.Fatalf("probe %s: %v, want WIN", text, resp.GetCategory())
			}
			return
		}
	}
	probe("R:RPd3:BPe4:0") // wait for the tables

	// d3xf5 is compulsory and takes Black's last piece (RULES.md): a win
	// with DTC 1, at counter 79 of 80 with no ply to spare.
	stream, err := damonev1.NewAnalysisServiceClient(r.conn).AnalyzePosition(ctx, &damonev1.AnalyzePositionRequest{
		Position: &damonev1.Position{Text: "R:RPd3:BPe4:79"}, Limit: &damonev1.AnalyzePositionRequest_Depth{Depth: 2}})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		m, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
		v := m.GetTablebase()
		if v.GetCategory() != damonev1.TablebaseCategory_TABLEBASE_CATEGORY_WIN || v.GetDtc() != 1 || v.PliesToSpare == nil || v.GetPliesToSpare() != 0 {
			t.Errorf("message %d: tablebase %v, want WIN dtc 1, 0 plies to spare", n, v)
		}
	}
	if n == 0 {
		t.Fatal("no message")
	}

}
